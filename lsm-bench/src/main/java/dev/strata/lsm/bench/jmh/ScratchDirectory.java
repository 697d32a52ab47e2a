package dev.strata.lsm.bench.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A temporary directory for one benchmark trial's files, deleted with everything in it on
 * {@link #close()}.
 *
 * <p>It is created under the directory named by the system property {@value #PARENT_PROPERTY}
 * when that is set, else under {@code java.io.tmpdir}. The property exists because IO
 * benchmarks measure the device behind that directory (a tmpfs makes {@code fsync} free), so
 * one points it at the disk a store would use, e.g. {@code jmh WalAppendBench
 * -jvmArgsAppend -Dstrata.jmh.dir=/mnt/nvme}.
 */
final class ScratchDirectory implements AutoCloseable {
    /** System property naming the parent directory of scratch directories. */
    static final String PARENT_PROPERTY = "strata.jmh.dir";

    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    /** Creates a new, empty directory whose name starts with {@code prefix}. */
    static ScratchDirectory create(String prefix) throws IOException {
        String parent = System.getProperty(PARENT_PROPERTY);
        if (parent == null || parent.isEmpty()) {
            return new ScratchDirectory(Files.createTempDirectory(prefix));
        }
        Path dir = Paths.get(parent);
        Files.createDirectories(dir);
        return new ScratchDirectory(Files.createTempDirectory(dir, prefix));
    }

    /** The directory. */
    Path path() {
        return path;
    }

    /** {@code name} inside the directory. */
    Path resolve(String name) {
        return path.resolve(name);
    }

    /** Deletes the directory and everything in it. */
    @Override
    public void close() throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            // Deepest first, so that each directory is empty when its turn comes.
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw new IOException("cannot delete benchmark scratch directory " + path + ": " + e.getCause(), e.getCause());
        }
    }
}
