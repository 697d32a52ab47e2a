package dev.strata.lsm.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Copies of a live store's directory as a process kill would leave it. */
public final class CrashImages {
    private CrashImages() {
    }

    /**
     * Copies the store's files (not its LOCK) from {@code from} to {@code to} as they are now:
     * what a kill leaves, since the page cache survives it. Files deleted meanwhile are skipped.
     * Directories are copied too (a store's column families live in {@code families/<id>/}).
     */
    public static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path p : files.toList()) {
                if (Files.isDirectory(p)) {
                    copy(p, to.resolve(p.getFileName()));
                } else if (Files.isRegularFile(p) && !p.getFileName().toString().equals("LOCK")) {
                    try {
                        Files.copy(p, to.resolve(p.getFileName()));
                    } catch (NoSuchFileException gone) {
                        // Deleted meanwhile.
                    }
                }
            }
        }
    }
}
