package dev.strata.lsm.engine;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.version.FamilyCatalog;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
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

    /**
     * Test seam: run (in the staging thread) after every family's manifest and tables are
     * staged and before the WAL is listed, on each attempt of a store with column families.
     */
    static volatile Runnable afterManifestsHook;

    private ReaderStaging() {
    }

    /** Stages the store in {@code source} into {@code staging}, which is created (and emptied first). */
    static void stage(StorageIO io, Path source, Path staging) {
        if (Files.exists(source.resolve(FamilyCatalog.FILE))) {
            stageFamilies(io, source, staging);
            return;
        }
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

    /**
     * After every family's manifest is staged: the commit record of an atomic flush being
     * installed, if the writer has one, and the tables it names that the staged manifests do
     * not, so that the reader's recovery finishes the group as the writer's would. Read after
     * the manifests, it covers any group they show in part: the writer writes the record
     * before the group's first manifest edit and deletes it only after the last, and a
     * manifest edited after it was staged makes staging start again.
     */
    private static void stageFlushGroup(StorageIO io, Path source, Path staging) throws IOException {
        Path record = source.resolve(dev.strata.lsm.version.FlushGroupRecord.FILE);
        if (!Files.exists(record)) {
            return;
        }
        Files.copy(record, staging.resolve(record.getFileName())); // gone meanwhile: NoSuchFileException, stage again
        for (var e : dev.strata.lsm.version.FlushGroupRecord.read(io, staging).entries()) {
            Path dir = e.familyId() == 0 ? source : FamilyCatalog.familyDirectory(source, e.familyId());
            Path into = staging.resolve(source.relativize(dir));
            String name = TableFiles.fileName(e.table().fileNumber());
            if (Files.isDirectory(into) && !Files.exists(into.resolve(name))) {
                linkOrCopy(dir.resolve(name), into.resolve(name));
            }
        }
    }

    /**
     * Stages a store with column families at one sequence number for all of them. The order
     * differs from a store of one family: the catalog, then each family's manifest (and the
     * tables it names), and only then the WAL segments from the lowest log number of any
     * family on — so the WAL copy ends past every family's flushed data, and every family
     * replays from its own staged log number to the same end (a batch across families is seen
     * whole or not at all: in a staged table of one family, it was in the WAL before the copy
     * began). Staging starts again if the writer changed the catalog, or deleted a file
     * meanwhile, or changed a family's manifest while the WAL copy no longer starts at the
     * segment the staged manifests replay from (a flush or merge deleted it). A writer that
     * flushes without pause therefore does not keep a reader from opening, as long as it
     * keeps that segment (the reader beside a busy writer failed after 100 stagings before).
     */
    private static void stageFamilies(StorageIO io, Path source, Path staging) {
        Exception last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                deleteTree(staging);
                Files.createDirectories(staging);
                byte[] catalogBytes = Files.readAllBytes(source.resolve(FamilyCatalog.FILE));
                FamilyCatalog catalog = FamilyCatalog.read(io, source);
                List<Path> dirs = new ArrayList<>();
                dirs.add(source);
                for (FamilyCatalog.Entry e : catalog.families()) {
                    dirs.add(FamilyCatalog.familyDirectory(source, e.id()));
                }
                List<Path> manifests = new ArrayList<>();
                List<Long> sizes = new ArrayList<>();
                long from = Long.MAX_VALUE;
                for (Path dir : dirs) {
                    Path into = staging.resolve(source.relativize(dir));
                    Files.createDirectories(into);
                    Path manifest = Manifest.readCurrent(io, dir);
                    if (manifest == null) {
                        throw new StoreException("cannot open " + source + " read-only: " + dir + " holds no "
                                + Manifest.CURRENT);
                    }
                    Path manifestCopy = into.resolve(manifest.getFileName());
                    Files.copy(manifest, manifestCopy);
                    Files.copy(dir.resolve(Manifest.CURRENT), into.resolve(Manifest.CURRENT));
                    manifests.add(manifest);
                    sizes.add(Files.size(manifestCopy));
                    for (long n : Manifest.referencedTables(io, manifestCopy)) {
                        String name = TableFiles.fileName(n);
                        linkOrCopy(dir.resolve(name), into.resolve(name));
                    }
                    long logNumber = 0;
                    for (dev.strata.lsm.version.VersionEdit edit : Manifest.readLog(io, manifestCopy).edits()) {
                        logNumber = Math.max(logNumber, edit.logNumber());
                    }
                    from = Math.min(from, logNumber);
                }
                Runnable hook = afterManifestsHook;
                if (hook != null) {
                    hook.run();
                }
                stageFlushGroup(io, source, staging);
                long firstCopied = -1;
                for (Path wal : WalSegments.list(io, source)) {
                    long number = WalSegments.parseNumber(wal).orElse(-1);
                    if (number >= from) {
                        Files.copy(wal, staging.resolve(wal.getFileName()));
                        if (firstCopied < 0) {
                            firstCopied = number;
                        }
                    }
                }
                boolean catalogChanged = !Arrays.equals(catalogBytes,
                        Files.readAllBytes(source.resolve(FamilyCatalog.FILE)));
                boolean changed = catalogChanged;
                for (int i = 0; i < dirs.size() && !changed; i++) {
                    changed = !manifests.get(i).equals(Manifest.readCurrent(io, dirs.get(i)))
                            || Files.size(manifests.get(i)) != sizes.get(i);
                }
                // A manifest edited after it was staged is harmless when the WAL copy still starts
                // at the segment the staged manifests replay from: the writer deletes segments
                // below every family's log number, oldest first, and a listed segment deleted
                // before its copy is a NoSuchFileException, so the copy then holds every record
                // from that segment on, and each family replays from its own staged log number.
                // Without it (the segment went, or none is needed: WAL mode none, log number 0)
                // only an unchanged set of manifests proves the copy complete.
                boolean walCoversStagedManifests = firstCopied >= 0 && firstCopied == from;
                if (!changed || (!catalogChanged && walCoversStagedManifests)) {
                    Files.write(staging.resolve(FamilyCatalog.FILE), catalogBytes);
                    return;
                }
                last = new IOException("the writer changed a manifest or the catalog while the WAL was copied");
            } catch (NoSuchFileException e) {
                last = e; // the writer deleted a file meanwhile: stage again
            } catch (IOException e) {
                throw new StoreException("cannot stage " + source + " for reading into " + staging + ": " + e, e);
            }
        }
        throw new StoreException("cannot open " + source + " read-only: the writer changed or deleted files under "
                + ATTEMPTS + " stagings in a row (last: " + last + ")", last);
    }

    private static void linkOrCopy(Path table, Path to) throws IOException {
        linkOrCopy(table, to, false);
    }

    /**
     * Hard-links {@code file} as {@code to}, or copies it where the file system refuses links
     * (forcing the copy to the device when {@code force}); returns the bytes copied (0 for a
     * link). A missing {@code file} is a NoSuchFileException either way. Shared by the
     * checkpoint (which forces) and reader staging (which need not).
     */
    static long linkOrCopy(Path file, Path to, boolean force) throws IOException {
        try {
            Files.createLink(to, file);
            return 0;
        } catch (UnsupportedOperationException | FileSystemException e) {
            if (e instanceof NoSuchFileException gone) {
                throw gone;
            }
            Files.copy(file, to);
            if (force) {
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(to,
                        java.nio.file.StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            }
            return Files.size(to);
        }
    }

    /**
     * Deletes {@code root} and everything under it, if it exists. The caller makes sure
     * nothing else writes or deletes under it meanwhile (a dropped column family's directory
     * is deleted only once its flushes, merges and obsolete-file sweeps have stopped,
     * {@code Engine.dropFamily}); a failure is an {@link IOException}.
     */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
