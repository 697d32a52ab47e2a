package dev.strata.lsm.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A crash image: a copy of a store directory taken while nothing writes a file (no flush or
 * merge runs, or the one that does is held at the moment of interest) — what a kill at that
 * moment would leave — opened afterwards as a store of its own. The lock file is left out.
 */
public final class CrashImage {
    private CrashImage() {
    }

    /** Copies the store directory {@code from} into the new directory {@code to}. */
    public static void copy(Path from, Path to) {
        try (var files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
