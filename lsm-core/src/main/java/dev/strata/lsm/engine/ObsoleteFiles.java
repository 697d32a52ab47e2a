package dev.strata.lsm.engine;

import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.TableLiveness;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which files of a store directory are garbage, and their deletion (Pebble's
 * obsolete_files): table files that no live version references and no running job is
 * writing (its pending outputs), WAL segments below the log number, superseded manifests
 * and temporary files. A job registers each output file number here before it creates the
 * file and settles it once the file is installed or deleted, so a concurrent sweep never
 * deletes a table being written.
 *
 * <p>Page liveness: a table merged in place (block compaction) keeps the pages of its
 * earlier versions; once no live version (the current one or one a reader pins) references
 * a page below the end of the file's newest live version, the page is released with
 * {@code fallocate(PUNCH_HOLE)} when the storage supports it and it is on (the native
 * storage's {@code punch-holes}). Pages past the newest live footer (an in-place merge in
 * progress, or a torn one) are never punched. Each sweep looks only at files merged in
 * place since their last sweep, and leaves a file alone once one version of it is live until
 * it is merged in place again. The pages punched out of a file are remembered while the file
 * lives, so they are not punched again; where the storage reports allocated blocks, a file's
 * holes are measured after each punch (its length less its blocks), so that neither the
 * policy's physical bytes nor the punched-bytes counter count a page twice, not even one
 * punched before a restart.
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
    /**
     * Files merged in place whose earlier versions' pages may be unreferenced, each with a
     * count of its in-place merges (so a sweep drops a file only if none came meanwhile);
     * guarded by itself.
     */
    private final Map<Long, Long> withDeadPages = new HashMap<>();
    /**
     * Pages punched out of each file in this process, kept while the file lives (a file merged
     * in place again must not have them punched, and counted, twice). The map is guarded by
     * {@link #withDeadPages}; each set is used only by sweeps, which hold {@link #punchLock}.
     */
    private final Map<Long, BitSet> punchedPages = new HashMap<>();
    private final LongAdder punchedBytes;
    /** Lazy deletion: obsolete tables wait until together they hold this many bytes (0: delete at once). */
    private final long deleteBatchBytes;
    /** One sweep punches at a time (sweeps run on any merge thread). */
    private final Object punchLock = new Object();
    /**
     * Sweeps hold the read lock while they touch the directory; {@link #stop} takes the write
     * lock, so once it returns no sweep runs and none will.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock sweeps = new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** Set by {@link #stop} (the family was dropped): sweeps do nothing any more. Guarded by {@link #sweeps}. */
    private boolean stopped;
    /** For tests: told {@code "sweep deletes N"} by a sweep about to delete N tables (null: none). */
    private volatile java.util.function.Consumer<String> hook;

    ObsoleteFiles(StorageIO io, Path dir, TableFiles tables, VersionSet versions, ReentrantLock mutex,
                  LongAdder punchedBytes, long deleteBatchBytes) {
        this.deleteBatchBytes = deleteBatchBytes;
        this.io = io;
        this.dir = dir;
        this.tables = tables;
        this.versions = versions;
        this.mutex = mutex;
        this.punchedBytes = punchedBytes;
    }

    /** For tests: sets the hook told {@code "sweep deletes N"} (null: none). */
    void hook(java.util.function.Consumer<String> hook) {
        this.hook = hook;
    }

    /**
     * The column family was dropped: waits for a running sweep to end (telling {@code waiting}
     * first if one runs), and makes every later sweep do nothing, so the caller may delete the
     * directory with nothing else touching it. Call without the engine's mutex (a sweep takes
     * it). Tables being written are the jobs' business: the caller waits for those.
     */
    void stop(Runnable waiting) {
        var lock = sweeps.writeLock();
        if (!lock.tryLock()) {
            waiting.run();
            lock.lock();
        }
        try {
            stopped = true;
        } finally {
            lock.unlock();
        }
    }

    /** Table files {@code fileNumbers} got new versions in place: their old pages may be released. */
    void mergedInPlace(Collection<Long> fileNumbers) {
        if (!io.supportsPunchHole()) {
            return;
        }
        synchronized (withDeadPages) {
            for (long n : fileNumbers) {
                withDeadPages.merge(n, 1L, Long::sum);
            }
        }
    }

    /**
     * Punches out the pages of files merged in place that no live version references
     * (see the class comment). Runs on a background thread after versions are released.
     */
    void punchDeadPages() {
        synchronized (punchLock) {
            punchDeadPagesLocked();
        }
    }

    private void punchDeadPagesLocked() {
        Map<Long, Long> files;
        synchronized (withDeadPages) {
            files = Map.copyOf(withDeadPages);
        }
        for (long n : files.keySet()) {
            List<Component> live = versions.liveVersionsOf(n);
            if (live.isEmpty()) {
                forget(n); // the file is deleted whole
                continue;
            }
            if (tables.sharedWithCheckpoint(n)) {
                // A checkpoint links the file and may read any of its pages: punch none while it does.
                continue;
            }
            BitSet done;
            synchronized (withDeadPages) {
                done = punchedPages.computeIfAbsent(n, k -> new BitSet());
            }
            try {
                List<SSTableReader> readers = new ArrayList<>();
                for (Component c : live) {
                    readers.add(c.reader());
                }
                int pageSize = readers.get(0).footer().pageSize();
                BitSet fresh = new BitSet();
                for (TableLiveness.PageRun r : TableLiveness.unreferencedPages(readers)) {
                    fresh.set(r.firstPage(), r.firstPage() + r.pageCount());
                }
                fresh.andNot(done);
                if (!fresh.isEmpty()) {
                    try (PageFile f = io.open(tables.path(n), OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                        long punched = 0;
                        for (int page = fresh.nextSetBit(0); page >= 0; page = fresh.nextSetBit(page)) {
                            int end = fresh.nextClearBit(page);
                            f.punchHole((long) page * pageSize, (long) (end - page) * pageSize);
                            punched += (long) (end - page) * pageSize;
                            done.set(page, end); // only sweeps, one at a time, touch it
                            page = end;
                        }
                        // A page punched before a restart is punched again (this process did not
                        // know it) but frees nothing: TableFiles measures what it frees.
                        punchedBytes.add(tables.punched(n, f, punched));
                    }
                }
                if (live.size() == 1) {
                    synchronized (withDeadPages) {
                        // Swept: nothing more to punch until it is merged in place again.
                        withDeadPages.remove(n, files.get(n));
                    }
                }
            } catch (IOException | UnsupportedOperationException e) {
                // Deleted meanwhile, or the storage refused: the pages stay; counted in file sizes.
                LOG.log(System.Logger.Level.DEBUG, "could not punch dead pages of table " + n + ": " + e);
                forget(n);
            }
        }
    }

    private void forget(long fileNumber) {
        synchronized (withDeadPages) {
            withDeadPages.remove(fileNumber);
            punchedPages.remove(fileNumber);
        }
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

    /**
     * Protects table file {@code fileNumber}, written by an earlier run and named by no version
     * yet (an atomic flush's table that recovery installs, {@code Recovery#finishFlushGroup}),
     * from sweeps until {@link #settled}, as a pending output is: its install may run merges
     * first, whose edits start sweeps that would otherwise take it for an orphan.
     */
    void protect(long fileNumber) {
        mutex.lock();
        try {
            pendingOutputs.add(fileNumber);
        } finally {
            mutex.unlock();
        }
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
                forget(fileNumber);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete table " + fileNumber, e);
        }
        settled(fileNumber);
    }

    /**
     * Deletes table files that no live version and no running job references — with lazy
     * deletion, only once they hold the batch's bytes together.
     */
    void deleteObsoleteTables() {
        deleteObsoleteTables(false);
    }

    /**
     * As {@link #deleteObsoleteTables()}; {@code all} deletes them whatever their bytes (at
     * close).
     */
    void deleteObsoleteTables(boolean all) {
        sweeps.readLock().lock();
        try {
            if (!stopped) {
                sweep(all);
            }
        } finally {
            sweeps.readLock().unlock();
        }
    }

    private void sweep(boolean all) {
        Set<Long> keep;
        mutex.lock();
        try {
            keep = new HashSet<>(versions.liveTableFiles());
            keep.addAll(pendingOutputs);
        } finally {
            mutex.unlock();
        }
        try {
            List<Long> obsolete = new ArrayList<>();
            long obsoleteBytes = 0;
            for (Path p : io.list(dir)) {
                long n = TableFiles.parseNumber(p.getFileName().toString());
                if (n >= 0 && !keep.contains(n)) {
                    obsolete.add(n);
                    if (deleteBatchBytes > 0) {
                        try {
                            obsoleteBytes += Files.size(p);
                        } catch (IOException e) {
                            // deleted meanwhile
                        }
                    }
                }
            }
            if (!all && deleteBatchBytes > 0 && obsoleteBytes < deleteBatchBytes) {
                obsolete.clear(); // not a batch yet
            }
            // Re-check under the lock, once for the batch: a job may have claimed a number
            // between the first look and the listing. A number neither pending nor live now
            // never becomes either (new outputs take new numbers), so one look serves every
            // deletion below (computing the live set per file cost O(files²) per sweep).
            List<Long> doomed = new ArrayList<>();
            mutex.lock();
            try {
                Set<Long> live = versions.liveTableFiles();
                for (long n : obsolete) {
                    if (!pendingOutputs.contains(n) && !live.contains(n)) {
                        doomed.add(n);
                    }
                }
            } finally {
                mutex.unlock();
            }
            java.util.function.Consumer<String> h = hook;
            if (h != null && !doomed.isEmpty()) {
                h.accept("sweep deletes " + doomed.size());
            }
            for (long n : doomed) {
                tables.delete(n);
                forget(n);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "deleting obsolete tables failed", e);
        }
        punchDeadPages();
    }

    /**
     * The store's WAL: where its segments are and the oldest segment any column family still
     * needs (for a store of one family, its version set's log number). Set before use.
     */
    private volatile Path walDir;
    private volatile java.util.function.LongSupplier walKeepFrom;

    /** Sets where the store's WAL segments are and the oldest one still needed (see {@link #walKeepFrom}). */
    void walRetention(Path walDir, java.util.function.LongSupplier keepFrom) {
        this.walDir = walDir;
        this.walKeepFrom = keepFrom;
    }

    /** Deletes WAL segments below the oldest one a column family still needs: components hold their data. */
    void deleteObsoleteWal() {
        Path wals = walDir != null ? walDir : dir;
        long logNumber = walKeepFrom != null ? walKeepFrom.getAsLong() : versions.logNumber();
        try {
            for (Path p : WalSegments.list(io, wals)) {
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
        // Tables merged in place before a crash may hold dead pages never released.
        List<Long> derived = new ArrayList<>();
        for (Component c : versions.current().components()) {
            if (c.reader() != null && c.reader().footer().previousFooterOffset() >= 0) {
                derived.add(c.meta().fileNumber());
            }
        }
        mergedInPlace(derived);
        long manifest = versions.manifestNumber();
        long logNumber = walKeepFrom != null ? walKeepFrom.getAsLong() : versions.logNumber();
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
