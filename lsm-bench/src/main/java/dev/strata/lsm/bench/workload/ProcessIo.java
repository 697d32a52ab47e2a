package dev.strata.lsm.bench.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * This process's IO counters from {@code /proc/self/io}. {@code write_bytes} counts bytes the
 * process caused to be sent to storage (accounted when page-cache pages are dirtied, so it
 * includes writes the kernel has not yet flushed); {@code wchar} counts bytes passed to
 * write calls. Some kernels and containers report write_bytes as 0: then wchar stands in
 * and {@link #sourceFor} says so.
 *
 * @param writeBytes write_bytes
 * @param wchar wchar
 * @param cancelledWriteBytes cancelled_write_bytes: dirty bytes discarded by truncating or deleting files
 */
public record ProcessIo(long writeBytes, long wchar, long cancelledWriteBytes) {
    private static final Path PROC_SELF_IO = Path.of("/proc/self/io");

    /** The current counters, or null where /proc/self/io does not exist or cannot be read. */
    public static ProcessIo read() {
        try {
            List<String> lines = Files.readAllLines(PROC_SELF_IO);
            long writeBytes = 0;
            long wchar = 0;
            long cancelled = 0;
            for (String line : lines) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                long v = Long.parseLong(line.substring(colon + 1).trim());
                switch (line.substring(0, colon)) {
                    case "write_bytes" -> writeBytes = v;
                    case "wchar" -> wchar = v;
                    case "cancelled_write_bytes" -> cancelled = v;
                    default -> {
                    }
                }
            }
            return new ProcessIo(writeBytes, wchar, cancelled);
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    /**
     * "write_bytes" if writing a probe file in {@code dir} raises this process's write_bytes
     * (the kernel accounts it for that file system), else "wchar"; "unavailable" without
     * /proc/self/io. A fresh process may not have written anything yet, so a zero counter
     * alone proves nothing.
     */
    public static String sourceFor(Path dir) {
        ProcessIo before = read();
        if (before == null) {
            return "unavailable";
        }
        try {
            Path probe = Files.createTempFile(dir, ".io-probe", ".tmp");
            try {
                Files.write(probe, new byte[64 << 10]);
                ProcessIo after = read();
                return after != null && after.writeBytes > before.writeBytes ? "write_bytes" : "wchar";
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot write a probe file in " + dir, e);
        }
    }

    /**
     * Bytes written since {@code before}, by {@code source} ("write_bytes" or "wchar"); chosen
     * once per run so that every delta of the run counts the same thing.
     */
    public long writtenSince(ProcessIo before, String source) {
        return "write_bytes".equals(source) ? writeBytes - before.writeBytes : wchar - before.wchar;
    }
}
