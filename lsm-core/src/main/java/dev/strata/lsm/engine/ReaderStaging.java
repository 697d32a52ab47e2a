package dev.strata.lsm.engine;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The directory a read-only store reads: a consistent state of a store another process may
 * be writing, staged without writing to, locking or deleting anything in the store's own
 * directory. Staging copies the WAL segments first, then the manifest CURRENT names, then
 * hard-links (or, across file systems, copies) every table that manifest references. A flush
 * that ends between the WAL copy and the manifest copy is seen through its table, which
 * covers the WAL records copied; one that ends after the manifest copy is seen through the
 * WAL copies; a file the writer deletes meanwhile (a merged table, a flushed WAL segment, a
 * rotated manifest) makes staging start again. The staged directory is then opened as an
 * ordinary store (recovering the copied WAL into its own memtable), which keeps its linked
 * tables readable whatever the writer deletes.
 */
final class ReaderStaging {
    /** Stagings started again because the writer deleted a file meanwhile, before giving up. */
    static final int ATTEMPTS = 100;

    private ReaderStaging() {
    }

    /** Stages the store in {@code source} into {@code staging}, which is created (and emptied first). */
    static void stage(StorageIO io, Path source, Path staging) {
        Exception last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                deleteTree(staging);
                Files.createDirectories(staging);
                Path manifest = Manifest.readCurrent(io, source);
                if (manifest == null) {
                    throw new StoreException("cannot open " + source + " read-only: it holds no store (no "
                            + Manifest.CURRENT + ")");
                }
                for (Path wal : WalSegments.list(io, source)) {
                    Files.copy(wal, staging.resolve(wal.getFileName()));
                }
                Path manifestCopy = staging.resolve(manifest.getFileName());
                Files.copy(manifest, manifestCopy);
                Files.copy(source.resolve(Manifest.CURRENT), staging.resolve(Manifest.CURRENT));
                Set<Long> tables = Manifest.referencedTables(io, manifestCopy);
                for (long n : tables) {
                    String name = TableFiles.fileName(n);
                    linkOrCopy(source.resolve(name), staging.resolve(name));
                }
                return;
            } catch (NoSuchFileException e) {
                last = e; // the writer deleted a file meanwhile: stage again
            } catch (IOException e) {
                throw new StoreException("cannot stage " + source + " for reading into " + staging + ": " + e, e);
            }
        }
        throw new StoreException("cannot open " + source + " read-only: the writer deleted files under " + ATTEMPTS
                + " stagings in a row (last: " + last + ")", last);
    }

    private static void linkOrCopy(Path table, Path to) throws IOException {
        try {
            Files.createLink(to, table);
        } catch (UnsupportedOperationException | FileSystemException e) {
            if (e instanceof NoSuchFileException gone) {
                throw gone;
            }
            Files.copy(table, to);
        }
    }

    /** Deletes {@code root} and everything under it, if it exists. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
