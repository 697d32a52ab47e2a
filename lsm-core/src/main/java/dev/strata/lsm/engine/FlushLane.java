package dev.strata.lsm.engine;

import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.WalSyncMode;

import java.nio.file.Path;
import java.util.List;

/**
 * The flush lane: flushes immutable memtables oldest first, one at a time, on the flush
 * lane of the store's {@link BackgroundThreads} (threads of their own, the store's or a
 * shared pool's), so a flush never queues behind a merge; retries a failed flush with backoff and
 * remembers its error for writers and {@code flush()} callers; after each flush drops the
 * memtable, asks the scheduler for merges and deletes WAL segments no longer needed.
 *
 * <p>Locking: its state is guarded by the engine's mutex.
 */
final class FlushLane {
    private static final System.Logger LOG = System.getLogger(FlushLane.class.getName());

    private final Path dir;
    private final WalSyncMode walMode;
    private final EngineMutex mutex;
    private final Memtables memtables;
    private final VersionSet versions;
    private final FlushJob job;
    private final MergeScheduler scheduler;
    private final ObsoleteFiles obsolete;
    private final Snapshots snapshots;
    /** The store's background jobs: flushes run on their flush lane. */
    private final BackgroundThreads lane;
    private final EngineCounters counters;
    private final StoreMetrics metrics;
    /** The store's storage and directory, and this family's id: for the flush intent (WAL mode none). */
    private final dev.strata.lsm.io.StorageIO io;
    private final Path storeDir;
    private final int familyId;

    private boolean running;
    /** Set (mutex held) when the family is dropped: no flush or retry starts any more. */
    private volatile boolean stopped;
    /** For tests: told {@code "flush started"} on the flush thread before each flush writes (null: none). */
    private volatile java.util.function.Consumer<String> hook;
    private Throwable error;
    private int failures;
    /** With atomic flush: the store's flush groups, which flush this family's memtables instead of this lane. */
    private FlushGroups groups;

    FlushLane(Path dir, WalSyncMode walMode, EngineMutex mutex, Memtables memtables, VersionSet versions, FlushJob job,
              MergeScheduler scheduler, ObsoleteFiles obsolete, Snapshots snapshots, BackgroundThreads lane,
              EngineCounters counters, StoreMetrics metrics, dev.strata.lsm.io.StorageIO io, Path storeDir,
              int familyId) {
        this.io = io;
        this.storeDir = storeDir;
        this.familyId = familyId;
        this.dir = dir;
        this.walMode = walMode;
        this.mutex = mutex;
        this.memtables = memtables;
        this.versions = versions;
        this.job = job;
        this.scheduler = scheduler;
        this.obsolete = obsolete;
        this.snapshots = snapshots;
        this.lane = lane;
        this.counters = counters;
        this.metrics = metrics;
    }

    /**
     * With atomic flush: hands this family's flushes to {@code groups} (the store's), which
     * switch and flush every family's memtables together; {@link #running}, {@link #error} and
     * {@link #schedule} then answer for the groups. Mutex held (or before the family is live).
     */
    void joinGroups(FlushGroups groups) {
        this.groups = groups;
    }

    /** The store's flush groups this family's flushes go through, or null (this lane flushes). */
    FlushGroups groups() {
        return groups;
    }

    /** A flush of this family is running (with atomic flush: a flush group holding its memtable). Mutex held. */
    boolean running() {
        return groups != null ? groups.runningFor(memtables) : running;
    }

    /** The last flush's error, null once a flush succeeds. Mutex held. */
    Throwable error() {
        return groups != null ? groups.error() : error;
    }

    /**
     * The family was dropped: no flush or flush retry of this lane starts from now on (a
     * running one ends as it would; {@link #running} says when). Mutex held.
     */
    void stop() {
        stopped = true;
    }

    /** For tests: sets the hook told {@code "flush started"} (null: none). */
    void hook(java.util.function.Consumer<String> hook) {
        this.hook = hook;
    }

    /** Starts flushing the oldest immutable memtable unless a flush runs or there is none. Mutex held. */
    void schedule() {
        if (groups != null) {
            groups.schedule();
            return;
        }
        if (stopped || running || mutex.closed() && walMode != WalSyncMode.NONE || memtables.set().immutable().isEmpty()) {
            return;
        }
        running = true;
        try {
            lane.flush(this::flushOldest);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The pool was closed under an open store (its shared resources closed first).
            running = false;
            error = e;
            mutex.signalBackground();
        }
    }

    private void flushOldest() {
        Memtable m;
        long nextSegment;
        FlushCut cut;
        mutex.lock();
        try {
            if (stopped) {
                // Queued when the family was dropped: its memtables were discarded.
                running = false;
                mutex.signalBackground();
                return;
            }
            m = memtables.oldestImmutable();
            nextSegment = memtables.segmentAfterOldest();
            cut = FlushCut.take(snapshots, memtables.log());
        } finally {
            mutex.unlock();
        }
        java.util.function.Consumer<String> h = hook;
        if (h != null) {
            h.accept("flush started");
        }
        List<Component> flushed = List.of();
        long flushStart = System.nanoTime();
        try {
            versions.ensureIntactTail(); // no new tables while a crash would leave a torn manifest
            boolean intent = walMode == WalSyncMode.NONE && !m.isEmpty();
            if (intent) {
                writeIntent(io, storeDir, familyId, versions.lastSequence());
            }
            flushed = m.isEmpty() ? List.of() : job.write(m, cut);
            long maxSeq = cut.lastSequence(m);
            if (flushed.isEmpty()) {
                job.installNothing(nextSegment, maxSeq);
            } else {
                job.install(flushed, nextSegment, maxSeq);
                counters.flushes.incrementAndGet();
                metrics.recordFlush(System.nanoTime() - flushStart);
            }
            if (intent) {
                dev.strata.lsm.version.FlushGroupRecord.deleteIntent(io, storeDir);
            }
        } catch (Throwable e) {
            // Any Throwable: a flush that ends without this bookkeeping would leave running set
            // for good, and flush() and close() waiting for it forever.
            LOG.log(System.Logger.Level.WARNING, "flush to " + dir + " failed; will retry", e);
            for (Component c : flushed) {
                obsolete.deleteUninstalled(c.meta().fileNumber());
            }
            mutex.lock();
            try {
                error = e;
                failures++;
                running = false;
                mutex.signalBackground();
                if (!stopped) {
                    scheduleRetry(lane, mutex, this::retry, failures);
                }
            } finally {
                mutex.unlock();
            }
            return;
        }
        // Before the memtable leaves the list, which is what flush() waits for: a caller that
        // flushed every family finds the segments none of them needs deleted, not a moment
        // later. This tree still counts as holding data here, so it keeps its new log number's
        // segment (what the installed edit names) and nothing below it that another family needs.
        obsolete.deleteObsoleteWal();
        mutex.lock();
        try {
            memtables.dropOldest();
            for (Component c : flushed) {
                obsolete.settled(c.meta().fileNumber());
            }
            error = null;
            failures = 0;
            running = false;
            schedule();
            scheduler.scheduleMerges();
            mutex.signalBackground();
        } finally {
            mutex.unlock();
        }
        // Again now that this tree may hold nothing (with several families it then needs none).
        obsolete.deleteObsoleteWal();
    }

    /**
     * WAL mode none: before a flush or an ingest of family {@code familyId} writes its first
     * table, the store's {@code FLUSHGROUP} file becomes an intent naming the family with
     * {@code above}, its last sequence number (written durably: temporary file, force, rename,
     * directory sync). Every table the operation writes holds only sequence numbers above it.
     * Deleted by {@code FlushGroupRecord.deleteIntent} once the operation's manifest edit is in and before the
     * operation returns, so while it is on disk nothing above {@code above} was acknowledged:
     * beside a manifest whose last record tore, the open can drop those tables instead of
     * refusing ({@code VersionSet.checkTornTail}). Left in place when the operation fails: the
     * retry writes it again, the next operation replaces it, an open deletes it. The caller
     * makes sure no other flush or ingest of the store writes the file meanwhile (the one flush
     * thread; an ingest waits until no family has a flush pending).
     */
    static void writeIntent(dev.strata.lsm.io.StorageIO io, Path storeDir, int familyId, long above)
            throws java.io.IOException {
        dev.strata.lsm.version.FlushGroupRecord.intent(List.of(
                new dev.strata.lsm.version.FlushGroupRecord.Intent(familyId, above))).write(io, storeDir);
    }

    /**
     * Schedules {@code retry} of a failed flush on {@code threads}' flush lane after a backoff
     * that doubles with {@code failures} (10 ms up to {@link MergeScheduler#MAX_RETRY_DELAY_MS}),
     * unless the store is closing (its close flushes what is left). Mutex held. Shared by this
     * lane and the store's flush groups ({@link FlushGroups}).
     */
    static void scheduleRetry(BackgroundThreads threads, EngineMutex mutex, Runnable retry, int failures) {
        long delay = Math.min(MergeScheduler.MAX_RETRY_DELAY_MS, 10L << Math.min(failures, 7));
        if (!mutex.closed()) {
            try {
                threads.schedule(BackgroundPool.Lane.FLUSH, retry, delay);
            } catch (java.util.concurrent.RejectedExecutionException rejected) {
                // closing
            }
        }
    }

    private void retry() {
        mutex.lock();
        try {
            schedule();
        } finally {
            mutex.unlock();
        }
    }
}
