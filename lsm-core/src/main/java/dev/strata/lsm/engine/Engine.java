package dev.strata.lsm.engine;

import dev.strata.lsm.BlockCompactionStats;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.StallChainStats;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.StorageIOs;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.repair.RepairReport;
import dev.strata.lsm.repair.StoreRepair;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.LiveDataEstimate;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.wal.WalSyncMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The store's engine: wires the parts together and answers the public calls. The parts,
 * each holding its own state (LevelDB's db_impl / version_set / compaction and Pebble's
 * compaction / compaction_picker / obsolete_files):
 *
 * <ul>
 *   <li>{@link WriteQueue} — the write queue and group commit; {@link WriteControl} — write
 *       admission and stall time; {@link Memtables} — the memtable set, WAL segment
 *       switching and sequence numbers;</li>
 *   <li>{@link FlushLane} — flushes one at a time on their own thread, never behind a merge;
 *       {@link FlushJob} — one flush, as the policy plans it;</li>
 *   <li>{@link MergeScheduler} — policy decisions off the mutex, validation, priorities, the
 *       busy set, running merges, retries; {@link MergeJob} — one merge or move;
 *       {@link PolicyBridge} — every call into the policy, and policy errors;</li>
 *   <li>{@link TableOutput} — writing and cutting tables; {@link ObsoleteFiles} — what may be
 *       deleted, and deleting it; {@link ReadPath} — reads; {@link Snapshots};
 *       {@link Recovery}; file names in {@link dev.strata.lsm.version.TableFiles} and
 *       {@link dev.strata.lsm.wal.WalSegments}.</li>
 * </ul>
 *
 * <h2>Locking</h2>
 * One mutex ({@link EngineMutex}) guards the write queue, the memtable set, the sequence
 * counter, the busy set, background-job bookkeeping and the error state; its condition is
 * signalled whenever a flush or merge ends or the writer queue moves. IO is never done under
 * the mutex except switching the WAL segment: the write-group leader writes the WAL and
 * inserts into the memtable with the mutex released while the other writers wait their turn,
 * and flushes and merges write files and the manifest without it
 * ({@link VersionSet#logAndApply} serializes edits). The policy is consulted without the
 * mutex, one call at a time. Readers take no lock: they read the volatile memtable set, then
 * pin the current version.
 */
public final class Engine implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    /** Sweeps of obsolete tables queued on the merge pool and not yet finished ({@link #awaitMerges}). */
    private final java.util.concurrent.atomic.AtomicInteger queuedSweeps = new java.util.concurrent.atomic.AtomicInteger();
    private final Path dir;
    private final StoreConfig config;
    private final CountingStorageIO io;
    private final BlockCache cache;
    private final TableFiles tables;
    private final VersionSet versions;
    private final ObsoleteFiles obsolete;
    private final BackgroundThreads threads;
    private final DirectoryLock dirLock;
    private final StoreMetrics metrics;
    private final EngineMutex mutex;
    private final EngineCounters counters = new EngineCounters();
    private final Snapshots snapshots = new Snapshots();
    private final Memtables memtables;
    private final PolicyBridge policy;
    private final MergeScheduler scheduler;
    private final FlushJob flushJob;
    private final FlushLane flushLane;
    private final WriteQueue writeQueue;
    private final WriteControl writeControl;
    private final ReadPath reads;

    /**
     * Opens the version set and starts the store's services; if anything fails, closes
     * what was opened so far (the caller still owns {@code dirLock}).
     */
    private Engine(Path dir, StoreConfig config, CountingStorageIO io, DirectoryLock dirLock) throws IOException {
        this.dir = dir;
        this.config = config;
        this.io = io;
        this.dirLock = dirLock;
        this.mutex = new EngineMutex(dir);
        StoreListener listener = config.listener() != null ? config.listener() : new StoreListener() { };
        this.cache = BlockCache.create(config.blockCacheBytes());
        this.tables = new TableFiles(io, dir, cache);
        var mergePolicy = MergePolicies.create(config.mergePolicy(), config.mergePolicyParams());
        VersionSet openedVersions = null;
        BackgroundThreads startedThreads = null;
        StoreMetrics boundMetrics = null;
        try {
            openedVersions = VersionSet.open(io, dir, tables, config.manifestRewriteBytes());
            startedThreads = new BackgroundThreads(dir, config.backgroundThreads());
            boundMetrics = new StoreMetrics(String.valueOf(dir.getFileName()), io.counters(), this::stats, cache);
            boundMetrics.bindTo(config.meterRegistry() != null ? config.meterRegistry()
                    : new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        } catch (IOException | RuntimeException | Error e) {
            if (boundMetrics != null) {
                boundMetrics.close();
            }
            if (startedThreads != null) {
                startedThreads.close();
            }
            if (openedVersions != null) {
                openedVersions.close();
            }
            // Table handles opened while the manifest was replayed, even if the replay failed.
            tables.closeAll();
            throw e;
        }
        this.versions = openedVersions;
        this.threads = startedThreads;
        this.metrics = boundMetrics;
        this.obsolete = new ObsoleteFiles(io, dir, tables, versions, mutex, counters.punchedBytes,
                config.obsoleteDeleteBatchBytes());
        TableOutput output = new TableOutput(io, dir, tables, versions, obsolete, config::tableOptions,
                config.valueExpiry());
        this.memtables = new Memtables(io, dir, config.walMode(), versions);
        this.policy = new PolicyBridge(mergePolicy, config.mergePolicy(), versions.current().policyState(), counters);
        MergeJob mergeJob = new MergeJob(io, tables, versions, output, obsolete, policy, mutex, config.tableOptions(),
                threads.blockMergePool, counters);
        this.scheduler = new MergeScheduler(dir, mutex, versions, policy, mergeJob, snapshots, threads.mergePool, threads.decider, counters,
                metrics, listener, this::flushRunning);
        this.flushJob = new FlushJob(mutex, versions, output, obsolete, policy, scheduler, mergeJob, snapshots,
                counters, listener);
        this.flushLane = new FlushLane(dir, config.walMode(), mutex, memtables, versions, flushJob, scheduler, obsolete,
                snapshots, threads.flushThread, counters, metrics);
        this.writeControl = new WriteControl(dir, config, mutex, memtables, flushLane, scheduler, counters);
        this.writeQueue = new WriteQueue(dir, config, mutex, memtables, writeControl);
        this.reads = new ReadPath(memtables, versions, mutex);
        versions.onVersionReleased(() -> {
            if (!threads.mergePool.isShutdown()) {
                queuedSweeps.incrementAndGet();
                try {
                    threads.mergePool.execute(() -> {
                        try {
                            obsolete.deleteObsoleteTables();
                        } finally {
                            queuedSweeps.decrementAndGet();
                        }
                    });
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    queuedSweeps.decrementAndGet(); // shutting down: close sweeps what is left
                }
            }
        });
    }

    /** For the scheduler, which is made before the flush lane. Mutex held. */
    private boolean flushRunning() {
        return flushLane.running();
    }

    /**
     * Opens (creating if needed) the store in {@code dir} and recovers it. A failed open
     * releases everything it took: files, threads and the directory.
     *
     * @throws StoreException if the store is open already, in this process or another, or
     *     cannot be opened; nothing of an open store is touched
     */
    public static Engine open(Path dir, StoreConfig config) {
        CountingStorageIO io = new CountingStorageIO(StorageIOs.of(config));
        DirectoryLock dirLock;
        try {
            io.createDirectories(dir);
            dirLock = DirectoryLock.acquire(dir);
        } catch (IOException e) {
            throw new StoreException("cannot open store " + dir + ": " + e, e);
        }
        Engine engine = null;
        try {
            engine = new Engine(dir, config, io, dirLock);
            engine.recover();
            return engine;
        } catch (IOException e) {
            abandonOpen(engine, dirLock);
            throw new StoreException("cannot open store " + dir + ": " + e, e);
        } catch (RuntimeException | Error e) {
            abandonOpen(engine, dirLock);
            throw e;
        }
    }

    /**
     * Rebuilds the manifest of the store in {@code dir} from its tables (see
     * {@link StoreRepair}). Takes the directory as {@link #open} does, so the store must not
     * be open, here or in another process.
     */
    public static RepairReport repair(Path dir, StoreConfig config) {
        if (!Files.isDirectory(dir)) {
            throw new StoreException("cannot repair " + dir + ": no such directory");
        }
        try (DirectoryLock held = DirectoryLock.acquire(dir)) {
            return StoreRepair.repair(dir, config);
        } catch (IOException e) {
            throw new StoreException("cannot repair " + dir + ": " + e, e);
        }
    }

    private static void abandonOpen(Engine engine, DirectoryLock dirLock) {
        if (engine != null) {
            engine.shutdownQuietly();
        } else {
            dirLock.close();
        }
    }

    /** Recovers the data, asks the policy for merges, and starts the policy tick. */
    private void recover() throws IOException {
        new Recovery(io, dir, versions, memtables, flushJob, obsolete, counters).run();
        mutex.lock();
        try {
            scheduler.scheduleMerges();
        } finally {
            mutex.unlock();
        }
        long tick = config.policyTickMillis();
        if (tick > 0) {
            // On the flush thread: the merge pool's threads may all be inside long merges, and the
            // tick's work (a view and a decision request under the mutex) is short.
            threads.flushThread.scheduleWithFixedDelay(this::policyTick, tick, tick, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The policy tick: asks the policy for merges although nothing was flushed or merged, so
     * time-based triggers (file or tombstone age) fire on an idle store.
     */
    private void policyTick() {
        mutex.lock();
        try {
            if (!mutex.closed()) {
                scheduler.scheduleMerges();
                mutex.signalBackground();
            }
        } catch (RuntimeException e) {
            // A periodic task that throws is never run again: log and keep ticking.
            LOG.log(System.Logger.Level.ERROR, "policy tick in " + dir + " failed", e);
        } finally {
            mutex.unlock();
        }
    }

    // ------------------------------------------------------------------ writes

    /** Applies {@code batch} atomically; returns once it is as durable as the WAL mode promises. */
    public void write(WriteBatch batch) {
        long t0 = System.nanoTime();
        writeQueue.write(batch);
        metrics.recordWrite(System.nanoTime() - t0);
    }

    /**
     * For tests: runs {@code hook} before each insert into the memtable (null: none), to
     * inject failures between the WAL append and the memtable.
     */
    void memtableInsertHook(Runnable hook) {
        mutex.lock();
        try {
            writeQueue.memtableInsertHook(hook);
        } finally {
            mutex.unlock();
        }
    }

    // ------------------------------------------------------------------ reads

    /** The value of {@code key} at {@code seq}, or null. */
    public byte[] get(byte[] key, long seq) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        mutex.checkOpen();
        metrics.recordGet();
        return reads.get(key, seq);
    }

    /** The newest value of {@code key}, or null (see {@link ReadPath#getLatest}). */
    public byte[] getLatest(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        mutex.checkOpen();
        metrics.recordGet();
        return reads.getLatest(key);
    }

    /** A cursor over live keys in [from, to) at {@code seq}. */
    public Cursor scan(byte[] from, byte[] to, long seq) {
        mutex.checkOpen();
        return reads.scan(from, to, seq);
    }

    /** A cursor over the newest data: like {@link #scan(byte[], byte[], long)} at the visible sequence number. */
    public Cursor scanLatest(byte[] from, byte[] to) {
        mutex.checkOpen();
        return reads.scanLatest(from, to);
    }

    /** Throws {@link dev.strata.lsm.StoreClosedException} once the store is closed. */
    public void checkOpen() {
        mutex.checkOpen();
    }

    /** The sequence number a new read or snapshot sees. */
    public long visibleSequence() {
        return memtables.visibleSequence();
    }

    /** Registers a snapshot at the current visible sequence number and returns it. */
    public long acquireSnapshot() {
        mutex.lock();
        try {
            mutex.checkOpen();
            long seq = memtables.visibleSequence();
            snapshots.add(seq);
            return seq;
        } finally {
            mutex.unlock();
        }
    }

    /** Releases a snapshot taken by {@link #acquireSnapshot()}. */
    public void releaseSnapshot(long seq) {
        snapshots.release(seq);
    }

    // ------------------------------------------------------------------ control

    /**
     * Switches out the memtable (if it holds anything) and waits until it and every earlier
     * one are flushed. Writes that other threads make meanwhile may or may not be flushed.
     */
    public void flush() {
        mutex.lock();
        try {
            mutex.checkOpen();
            // Take the writer queue's turn so no write group is between WAL and memtable.
            WriteQueue.Writer w = writeQueue.awaitBarrierTurn();
            try {
                mutex.checkOpen();
                if (!memtables.set().active().isEmpty()) {
                    writeControl.switchMemtable();
                }
            } finally {
                writeQueue.leave(w);
            }
            // Wait for the memtables there are now, not for those that writers keep switching
            // out meanwhile: under steady writes the backlog is rarely empty. Flushes go
            // oldest first, so the newest of them going is enough.
            List<Memtable> backlog = memtables.set().immutable();
            Memtable newest = backlog.isEmpty() ? null : backlog.get(0);
            int kicks = 0;
            while (newest != null && memtables.set().immutable().contains(newest)) {
                mutex.checkOpen();
                Throwable flushError = flushLane.error();
                if (flushError != null && !flushLane.running()) {
                    // One fresh attempt on behalf of this caller; a second failure is reported.
                    if (kicks++ > 0) {
                        throw new StoreException("flush of " + dir + " failed: " + flushError, flushError);
                    }
                    flushLane.schedule();
                }
                mutex.awaitBackground(100);
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Waits until no flush or merge runs, the policy wants no more merges, and the sweeps of
     * obsolete tables queued by released versions have run (so that the directory then holds
     * no table a merge made obsolete, unless a batch threshold or a reader still keeps it).
     */
    public void awaitMerges() {
        mutex.lock();
        try {
            mutex.checkOpen();
            while (flushLane.running() || !memtables.set().immutable().isEmpty() || scheduler.active()
                    || queuedSweeps.get() > 0) {
                mutex.checkOpen();
                mutex.awaitBackground(100);
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * An estimate of the live keys, from counts alone (no table is read): the memtables'
     * distinct live keys less their deleted keys, plus each table's entries less twice its
     * tombstones (a tombstone is an entry and hides one), as RocksDB's
     * {@code rocksdb.estimate-num-keys}. Exact for distinct inserts; high while overwritten
     * versions of a key sit in several components (a memtable and a table, or tables not yet
     * merged), low while tombstones are kept whose keys a merge already dropped. Never below 0.
     */
    public long estimateKeyCount() {
        long keys = memtables.estimatedKeyCount();
        Version v = versions.acquire();
        try {
            for (Component c : v.components()) {
                keys += c.meta().entryCount() - 2 * c.meta().tombstoneCount();
            }
        } finally {
            v.release();
        }
        return Math.max(0, keys);
    }

    /** Counters and gauges. */
    public StoreStats stats() {
        Version v = versions.acquire();
        try {
            long bytes = 0;
            long tombstones = 0;
            int levels = v.levels().size();
            long[] liveByLevel = new long[levels];
            long[] physicalByLevel = new long[levels];
            long[] logicalByLevel = new long[levels];
            for (int level = 0; level < levels; level++) {
                for (Run run : v.levels().get(level)) {
                    for (Component c : run.components()) {
                        bytes += c.meta().sizeBytes();
                        tombstones += c.meta().tombstoneCount();
                        liveByLevel[level] += c.meta().sizeBytes();
                        physicalByLevel[level] += c.physicalBytes();
                        logicalByLevel[level] += c.reader() != null ? c.reader().footer().liveBytes()
                                : c.meta().sizeBytes();
                    }
                }
            }
            // The pinned version's files are open, so the held files are at least its components.
            long fileBytes = Math.max(bytes, tables.fileBytes());
            return new StoreStats(io.counters().snapshot(), fileBytes, bytes, LiveDataEstimate.of(v),
                    v.componentCounts(), counters.flushes.get(), counters.merges.get(), counters.stallNanos.sum(),
                    memtables.approximateBytes(), memtables.visibleSequence(), counters.policyErrors.get(),
                    v.components().stream().mapToLong(c -> c.meta().fileNumber()).distinct().sorted().toArray(),
                    new BlockCompactionStats(counters.childDecisions[3].sum(), counters.childDecisions[0].sum(),
                            counters.childDecisions[1].sum(), counters.childDecisions[2].sum(),
                            counters.inPlaceBytes.sum(), counters.punchedBytes.sum()), tables.allocatedBytes(),
                    chains(), counters.writtenByLevel(), tombstones, liveByLevel, physicalByLevel)
                    .withCompression(logicalByLevel, tables.cache().decompressions(),
                            tables.cache().decompressionNanos());
        } finally {
            v.release();
        }
    }

    private StallChainStats chains() {
        mutex.lock();
        try {
            return counters.chains.stats();
        } finally {
            mutex.unlock();
        }
    }

    /** Merge tasks the policy proposed that the engine rejected. */
    public long policyErrors() {
        return counters.policyErrors.get();
    }

    /** The store's meters. */
    public StoreMetrics metrics() {
        return metrics;
    }

    /** The block cache (for metrics). */
    public BlockCache blockCache() {
        return cache;
    }

    /** The current version (for tests and tools); do not hold on to it. */
    public Version currentVersion() {
        return versions.current();
    }

    public Path directory() {
        return dir;
    }

    public StoreConfig config() {
        return config;
    }

    /**
     * Lets queued writes finish, waits for running jobs, and releases the store. In WAL
     * mode none it first flushes the memtables, their only copy.
     *
     * @throws StoreException in WAL mode none, after releasing the store, if flushing the
     *     last writes failed: they are lost
     */
    @Override
    public void close() {
        Throwable unflushed = null;
        mutex.lock();
        try {
            if (mutex.closed()) {
                return;
            }
            // Writes queued before close() finish first; later ones find the store closed.
            WriteQueue.Writer w = writeQueue.awaitBarrierTurn();
            try {
                if (mutex.closed()) {
                    return;
                }
                if (config.walMode() == WalSyncMode.NONE) {
                    unflushed = flushForClose();
                }
                mutex.markClosed();
                mutex.signalBackground();
            } finally {
                writeQueue.leave(w);
            }
            while (flushLane.running() || scheduler.running()) {
                mutex.awaitBackground(100);
            }
            memtables.closeWal();
        } finally {
            mutex.unlock();
        }
        obsolete.deleteObsoleteTables(true); // what lazy deletion still holds
        shutdownQuietly();
        if (unflushed != null) {
            throw new StoreException("store " + dir + " is closed without its last writes: WAL mode none keeps them"
                    + " only in memory, and flushing them failed: " + unflushed, unflushed);
        }
    }

    /**
     * In WAL mode none the memtables are the only copy of the last writes: flushes them, with
     * one fresh attempt after a failure as {@link #flush()} makes. Returns the error that
     * lost them, or null. Mutex held, at the head of the write queue.
     */
    private Throwable flushForClose() {
        if (!memtables.set().active().isEmpty()) {
            writeControl.switchMemtable();
        }
        int attempts = 0;
        while (!memtables.set().immutable().isEmpty()) {
            Throwable flushError = flushLane.error();
            if (flushError != null && !flushLane.running()) {
                if (attempts++ > 0) {
                    return flushError;
                }
                flushLane.schedule();
            }
            mutex.awaitBackground(100);
        }
        return null;
    }

    private void shutdownQuietly() {
        mutex.markClosed();
        threads.close();
        try {
            versions.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing manifest failed", e);
        }
        // After a failed open, recovery may have started a WAL segment; after close() this is a no-op.
        memtables.closeWal();
        tables.closeAll();
        metrics.close();
        dirLock.close();
    }
}
