package dev.strata.lsm.io.direct;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Space the file system has allocated to files, from {@code statx(2)}'s block count: what
 * {@code du -B1} reports (preallocated blocks counted, punched holes not), without starting a
 * process. Benchmarks sample a store's directory with it once a second.
 */
public final class AllocatedSpace {
    private AllocatedSpace() {
    }

    /**
     * Whether this JVM can ask the kernel for block counts ({@code statx} bound).
     *
     * @return true when {@link #ofFile} and {@link #ofTree} can measure
     */
    public static boolean available() {
        return Statx.AVAILABLE;
    }

    /**
     * Bytes allocated to one file (a final symbolic link is measured itself, not followed).
     *
     * @param file the file
     * @return its allocated blocks times 512, or -1 when statx is unavailable, the file does not
     *         exist or its block count is not reported
     */
    public static long ofFile(Path file) {
        long blocks = Statx.blocksOf(file);
        return blocks < 0 ? -1 : blocks * 512;
    }

    /**
     * Bytes allocated to every regular file under {@code dir}, as {@code du -s -B1} counts them
     * apart from the directories' own blocks. A file deleted while the tree is walked counts 0.
     *
     * @param dir the directory
     * @return the sum, or -1 when statx is unavailable
     * @throws UncheckedIOException if the directory cannot be listed
     */
    public static long ofTree(Path dir) {
        if (!available()) {
            return -1;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> Math.max(0, ofFile(f))).sum();
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("cannot measure " + dir + ": it does not exist", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir, e);
        }
    }
}
