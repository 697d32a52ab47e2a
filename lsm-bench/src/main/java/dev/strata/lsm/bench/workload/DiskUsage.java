package dev.strata.lsm.bench.workload;

import dev.strata.lsm.io.direct.AllocatedSpace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Bytes a directory takes on disk: allocated blocks as {@code du -s -B1} counts them for its
 * files (which counts preallocated and not yet written-back space, as the file system does),
 * read with {@code statx(2)} through lsm-io-native's {@link AllocatedSpace} (no process is
 * started: the run monitor samples once a second, and a {@code du} process a second cost the
 * measured engines CPU), or from {@code du} where statx cannot be bound; and the apparent
 * size (sum of file lengths). Allocated is -1 where neither is available.
 *
 * @param allocatedBytes the allocated bytes of the directory's files, or -1
 * @param apparentBytes sum of regular file lengths
 */
public record DiskUsage(long allocatedBytes, long apparentBytes) {

    /** Measures {@code dir} now: one walk of the tree for both figures where statx is bound. */
    public static DiskUsage of(Path dir) {
        if (!AllocatedSpace.available()) {
            return new DiskUsage(allocatedByDu(dir), apparent(dir));
        }
        return measuredAgainOnARace(() -> walkBoth(dir));
    }

    /** Runs {@code walk}, again up to twice when it raced with the engine deleting a file. */
    private static <T> T measuredAgainOnARace(java.util.function.Supplier<T> walk) {
        for (int attempt = 1; ; attempt++) {
            try {
                return walk.get();
            } catch (UncheckedIOException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    /** File lengths and allocated blocks of every regular file under {@code dir}, in one walk. */
    private static DiskUsage walkBoth(Path dir) {
        long[] sums = new long[2];
        try (Stream<Path> files = Files.walk(dir)) {
            files.filter(Files::isRegularFile).forEach(p -> {
                try {
                    sums[1] += Files.size(p);
                } catch (IOException e) {
                    return; // the engine deleted the file between listing and sizing it: no space
                }
                sums[0] += Math.max(0, AllocatedSpace.ofFile(p));
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir, e);
        }
        return new DiskUsage(sums[0], sums[1]);
    }

    /**
     * The apparent size alone (no {@code du} process): cheap enough to sample every second.
     *
     * @throws UncheckedIOException if the directory cannot be listed
     */
    public static long apparentBytesOf(Path dir) {
        return apparent(dir);
    }

    /** Allocated bytes when known, else the apparent size. */
    public long bytes() {
        return allocatedBytes >= 0 ? allocatedBytes : apparentBytes;
    }

    /** "allocated blocks" or "file lengths", naming what {@link #bytes()} counts. */
    public String source() {
        return allocatedBytes >= 0 ? "allocated blocks" : "file lengths";
    }

    private static long apparent(Path dir) {
        return measuredAgainOnARace(() -> sumLengths(dir));
    }

    private static long sumLengths(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    // The engine deleted the file between listing and sizing it: it takes no space.
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir, e);
        }
    }

    /** {@code du -s -B1}: the directory's files and the directories' own blocks. */
    static long allocatedByDu(Path dir) {
        try {
            Process du = new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out;
            try (InputStream in = du.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!du.waitFor(60, TimeUnit.SECONDS) || du.exitValue() != 0 || out.isEmpty()) {
                du.destroy();
                return -1;
            }
            return Long.parseLong(out.split("\\s+")[0]);
        } catch (IOException | NumberFormatException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
