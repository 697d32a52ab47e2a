package dev.strata.lsm.engine;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which files of a store directory are garbage, and their deletion (Pebble's
 * obsolete_files): table files that no live version references and no running job is
 * writing (its pending outputs), WAL segments below the log number, superseded manifests
 * and temporary files. A job registers each output file number here before it creates the
 * file and settles it once the file is installed or deleted, so a concurrent sweep never
 * deletes a table being written.
 *
 * <p>Locking: the pending set is guarded by the engine's mutex, shared so that a sweep
 * checks "pending or live" atomically with respect to jobs installing their outputs.
 */
final class ObsoleteFiles {
    private static final System.Logger LOG = System.getLogger(ObsoleteFiles.class.getName());

    private final StorageIO io;
    private final Path dir;
    private final TableFiles tables;
    private final VersionSet versions;
    private final ReentrantLock mutex;
    /** Table files jobs are writing or have written but not yet installed; guarded by {@link #mutex}. */
    private final Set<Long> pendingOutputs = new HashSet<>();

    ObsoleteFiles(StorageIO io, Path dir, TableFiles tables, VersionSet versions, ReentrantLock mutex) {
        this.io = io;
        this.dir = dir;
        this.tables = tables;
        this.versions = versions;
        this.mutex = mutex;
    }

    /** A new file number for a job's output table, protected from sweeps until {@link #settled}. */
    long newOutputFile() {
        long n = versions.newFileNumber();
        mutex.lock();
        try {
            pendingOutputs.add(n);
        } finally {
            mutex.unlock();
        }
        return n;
    }

    /** Output table {@code fileNumber} is installed (a live version holds it) or gone. */
    void settled(long fileNumber) {
        mutex.lock();
        try {
            pendingOutputs.remove(fileNumber);
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Deletes a table a job wrote but did not install, unless a failed manifest write may
     * still name it (see {@link VersionSet#unsettled}); either way it is settled.
     */
    void deleteUninstalled(long fileNumber) {
        try {
            if (versions.unsettled(fileNumber)) {
                // A failed manifest write may still name it: it goes once a new manifest supersedes.
                LOG.log(System.Logger.Level.DEBUG, "keeping table " + fileNumber + " of a failed manifest edit");
            } else {
                tables.delete(fileNumber);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete table " + fileNumber, e);
        }
        settled(fileNumber);
    }

    /** Deletes table files that no live version and no running job references. */
    void deleteObsoleteTables() {
        Set<Long> keep;
        mutex.lock();
        try {
            keep = new HashSet<>(versions.liveTableFiles());
            keep.addAll(pendingOutputs);
        } finally {
            mutex.unlock();
        }
        try {
            for (Path p : io.list(dir)) {
                long n = TableFiles.parseNumber(p.getFileName().toString());
                if (n >= 0 && !keep.contains(n)) {
                    mutex.lock();
                    try {
                        // Re-check under the lock: a job may have claimed the number meanwhile.
                        if (pendingOutputs.contains(n) || versions.liveTableFiles().contains(n)) {
                            continue;
                        }
                    } finally {
                        mutex.unlock();
                    }
                    tables.delete(n);
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "deleting obsolete tables failed", e);
        }
    }

    /** Deletes WAL segments below the version set's log number: components hold their data. */
    void deleteObsoleteWal() {
        long logNumber = versions.logNumber();
        try {
            for (Path p : WalSegments.list(io, dir)) {
                if (WalSegments.parseNumber(p).orElse(Long.MAX_VALUE) < logNumber) {
                    io.delete(p);
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "deleting obsolete WAL segments failed", e);
        }
    }

    /**
     * At open, after recovery: deletes table files no version names, obsolete WAL segments,
     * old manifests and temporary files.
     */
    void deleteOrphans() throws IOException {
        Set<Long> live = versions.liveTableFiles();
        long manifest = versions.manifestNumber();
        long logNumber = versions.logNumber();
        for (Path p : io.list(dir)) {
            String name = p.getFileName().toString();
            long table = TableFiles.parseNumber(name);
            long segment = WalSegments.parseNumber(p).orElse(-1);
            long man = Manifest.parseNumber(name);
            boolean orphan = (table >= 0 && !live.contains(table)) || (segment >= 0 && segment < logNumber)
                    || (man >= 0 && man != manifest) || name.endsWith(".tmp");
            if (orphan) {
                LOG.log(System.Logger.Level.DEBUG, "deleting orphan {0}", p);
                if (table >= 0) {
                    // Through the table files: the recovery flush may have made a table obsolete that is open.
                    tables.delete(table);
                } else {
                    io.delete(p);
                }
            }
        }
    }
}
