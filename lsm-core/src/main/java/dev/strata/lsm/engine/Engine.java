package dev.strata.lsm.engine;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIOs;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.merge.MergingIterator;
import java.util.Comparator;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.merge.OutputCutter;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import dev.strata.lsm.repair.RepairReport;
import dev.strata.lsm.repair.StoreRepair;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.LiveDataEstimate;
import dev.strata.lsm.version.ComponentTimes;
import dev.strata.lsm.version.ComponentViews;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.wal.WalRecovery;
import dev.strata.lsm.wal.WalSegments;
import dev.strata.lsm.wal.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store's engine: write groups into the WAL and the memtable, memtable switches,
 * background flushes and merges chosen by the policy, versions, recovery and reads.
 *
 * <h2>Locking</h2>
 * One {@link ReentrantLock} {@code mutex} guards the write queue, the memtable set, the
 * sequence counter, the busy-component set, background-job bookkeeping and the error
 * state; {@code background} is its condition, signalled whenever a flush or merge ends or
 * the writer queue moves. IO is never done under the mutex except switching the WAL
 * segment: the write-group leader writes the WAL and inserts into the memtable with the
 * mutex released while the other writers wait their turn, and flushes and merges write
 * files and the manifest without it ({@link VersionSet#logAndApply} serializes edits).
 * Policy calls are made under the mutex, so the policy sees one call at a time. Readers
 * take no lock: they read the volatile memtable set, then pin the current version.
 *
 * <h2>Write queue</h2>
 * Writers queue up; the one at the head leads a group of itself and the writers behind it,
 * writes the group and hands the head on. {@link #flush()} and {@link #close()} queue a
 * barrier instead, which no group absorbs or passes, to act while no group is between WAL
 * and memtable. A group that fails — whatever it throws, {@link Error}s included — is taken
 * off the queue with every member told the error and the next head woken; if it failed
 * after the WAL took it but before the memtable held all of it, later writes are refused
 * until the store is reopened (see {@link #writesRefused}).
 */
public final class Engine implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());
    private static final long MAX_GROUP_BYTES = 1 << 20;
    private static final int INITIAL_WAL_SCRATCH = 4096;
    private static final int RETAINED_WAL_SCRATCH = 1 << 20;
    private static final long MAX_RETRY_DELAY_MS = 1000;

    private final Path dir;
    private final StoreConfig config;
    private final CountingStorageIO io;
    private final TableOptions tableOptions;
    private final ObsoleteFiles obsolete;
    private final TableOutput output;
    private final BlockCache cache;
    private final TableFiles tables;
    private final VersionSet versions;
    private final MergePolicy policy;
    private final ScheduledExecutorService pool;
    /** The flush lane: flushes run here, one at a time, never queued behind a merge on {@link #pool}. */
    private final ScheduledExecutorService flushLane;
    private final DirectoryLock dirLock;
    private final StoreMetrics metrics;
    private final StoreListener listener;

    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition background = mutex.newCondition();
    private final ArrayDeque<Writer> writers = new ArrayDeque<>();
    /** Test hook run before each memtable insert of a write group; guarded by the mutex. */
    private Runnable memtableInsertHook;
    /** See {@link #walScratch}; guarded by leadership of the write group. */
    private byte[] walScratch = new byte[INITIAL_WAL_SCRATCH];

    private volatile MemtableSet memtables;
    private volatile long visibleSequence;
    private long lastSequence;
    private WalWriter wal;
    private boolean walFailed;
    /**
     * Set when a write group failed after its WAL record was written but before all of it
     * was in the memtable: the memtable holds part of a batch the WAL holds whole. Every
     * later write is refused with this error until the store is reopened.
     */
    private StoreException writesRefused;

    private final Set<ComponentId> busy = new HashSet<>();
    /** Merges being executed, by the job that runs them (a merge task, or a flush's claim); guarded by the mutex. */
    private final Map<Object, List<RunningMerge>> running = new IdentityHashMap<>();
    private boolean flushRunning;
    private int mergesRunning;
    /** A policy decision is queued or running on {@link #decider}; guarded by the mutex. */
    private boolean decisionPending;
    /** Something changed while a decision ran: decide again when it ends; guarded by the mutex. */
    private boolean decisionAgain;
    /**
     * Serializes every call into the policy, which is not required to be thread safe. Never
     * taken while {@link #decider} holds it and wants the mutex: the decider calls the
     * policy without the mutex.
     */
    private final ReentrantLock policyLock = new ReentrantLock();
    /** The policy's merge decisions run here, off the write mutex (one thread). */
    private final ExecutorService decider;
    private boolean mergeRetryPending;
    private Throwable flushError;
    private int flushFailures;
    private int mergeFailures;
    private volatile WriteAdmission admission = WriteAdmission.GO;
    /** The last admission override logged (see scheduleMerges), to log each distinct one once. */
    private String lastAdmissionOverride;
    private byte[] policyState;
    private volatile boolean closed;

    private final Snapshots snapshots = new Snapshots();
    private final AtomicLong flushCount = new AtomicLong();
    private final AtomicLong mergeCount = new AtomicLong();
    private final AtomicLong policyErrors = new AtomicLong();
    private final LongAdder stallNanos = new LongAdder();

    /**
     * A caller waiting in the write queue: a writer with its batch, or a barrier (no batch)
     * that {@link #flush()} and {@link #close()} queue to get a moment in which no write
     * group is between WAL and memtable. A write-group leader never takes a barrier into
     * its group and stops grouping at one, so every barrier reaches the head of the queue.
     */
    private static final class Writer {
        final WriteBatch batch;
        final Condition turn;
        boolean done;
        RuntimeException error;

        Writer(WriteBatch batch, Condition turn) {
            this.batch = batch;
            this.turn = turn;
        }

        boolean isBarrier() {
            return batch == null;
        }
    }

    /**
     * Opens the version set and starts the store's services; if anything fails, closes
     * what was opened so far (the caller still owns {@code dirLock}).
     */
    private Engine(Path dir, StoreConfig config, CountingStorageIO io, DirectoryLock dirLock) throws IOException {
        this.dir = dir;
        this.config = config;
        this.io = io;
        this.dirLock = dirLock;
        this.tableOptions = config.tableOptions();
        this.listener = config.listener() != null ? config.listener() : new StoreListener() { };
        this.cache = BlockCache.create(config.blockCacheBytes());
        this.tables = new TableFiles(io, dir, cache);
        this.policy = MergePolicies.create(config.mergePolicy(), config.mergePolicyParams());
        VersionSet openedVersions = null;
        ScheduledExecutorService startedPool = null;
        ScheduledExecutorService startedFlushLane = null;
        ExecutorService startedDecider = null;
        StoreMetrics boundMetrics = null;
        try {
            openedVersions = VersionSet.open(io, dir, tables, config.manifestRewriteBytes());
            AtomicInteger threadNumber = new AtomicInteger();
            ThreadFactory factory = r -> {
                Thread t = new Thread(r, "strata-bg-" + dir.getFileName() + "-" + threadNumber.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            startedPool = Executors.newScheduledThreadPool(config.backgroundThreads(), factory);
            startedFlushLane = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "strata-flush-" + dir.getFileName());
                t.setDaemon(true);
                return t;
            });
            startedDecider = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "strata-policy-" + dir.getFileName());
                t.setDaemon(true);
                return t;
            });
            boundMetrics = new StoreMetrics(String.valueOf(dir.getFileName()), io.counters(), this::stats, cache);
            boundMetrics.bindTo(config.meterRegistry() != null ? config.meterRegistry()
                    : new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        } catch (IOException | RuntimeException | Error e) {
            if (boundMetrics != null) {
                boundMetrics.close();
            }
            if (startedPool != null) {
                startedPool.shutdownNow();
            }
            if (startedFlushLane != null) {
                startedFlushLane.shutdownNow();
            }
            if (startedDecider != null) {
                startedDecider.shutdownNow();
            }
            if (openedVersions != null) {
                openedVersions.close();
            }
            // Table handles opened while the manifest was replayed, even if the replay failed.
            tables.closeAll();
            throw e;
        }
        this.versions = openedVersions;
        this.obsolete = new ObsoleteFiles(io, dir, tables, versions, mutex);
        this.output = new TableOutput(io, dir, tables, versions, obsolete, tableOptions, config.valueExpiry());
        this.pool = startedPool;
        this.flushLane = startedFlushLane;
        this.decider = startedDecider;
        this.metrics = boundMetrics;
        this.policyState = versions.current().policyState();
        versions.onVersionReleased(() -> {
            if (!pool.isShutdown()) {
                pool.execute(obsolete::deleteObsoleteTables);
            }
        });
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
        if (!java.nio.file.Files.isDirectory(dir)) {
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

    // ------------------------------------------------------------------ recovery

    /**
     * Replays WAL segments from the log number on, flushes what they hold, and deletes
     * orphans. Records at or below the manifest's last sequence number are in tables
     * already and are skipped (normally there are none; after a repair, which sets the log
     * number to 0, every surviving segment is read).
     */
    private void recover() throws IOException {
        long logNumber = versions.logNumber();
        Memtable recovered = new Memtable(logNumber);
        long durable = versions.lastSequence();
        long maxSeq = durable;
        for (Path segment : WalSegments.list(io, dir)) {
            long n = WalSegments.parseNumber(segment).orElse(-1);
            if (n < logNumber) {
                continue;
            }
            long[] last = {maxSeq};
            WalRecovery.recover(io, segment, rec ->
                    last[0] = Math.max(last[0], BatchCodec.replay(rec.payload(), recovered, durable, segment, rec.offset())));
            maxSeq = last[0];
        }
        lastSequence = maxSeq;
        visibleSequence = maxSeq;
        long newSegment = versions.newFileNumber();
        if (config.walMode() != WalSyncMode.NONE) {
            wal = WalWriter.create(io, dir, newSegment, config.walMode());
        }
        memtables = new MemtableSet(new Memtable(newSegment), List.of());
        // Make the replayed writes a component (as the policy plans a flush) and retire the old segments.
        Component flushed = recovered.isEmpty() ? null : writeFlushTable(recovered, new long[0], Long.MAX_VALUE);
        long seqAtRecovery = maxSeq;
        if (flushed == null) {
            versions.logAndApply(base -> new VersionSet.Change(base.levels(), List.of(), List.of(),
                    base.flushCounter(), policyState, newSegment, seqAtRecovery));
        } else {
            try {
                installFlush(flushed, newSegment, seqAtRecovery);
            } catch (RuntimeException | IOException e) {
                obsolete.deleteUninstalled(flushed.meta().fileNumber());
                throw e;
            }
            flushCount.incrementAndGet();
        }
        obsolete.deleteOrphans();
        mutex.lock();
        try {
            scheduleMerges();
        } finally {
            mutex.unlock();
        }
        long tick = config.policyTickMillis();
        if (tick > 0) {
            // On the flush lane: the merge pool's threads may all be inside long merges, and the
            // tick's work (a view and a decision under the mutex) is short.
            flushLane.scheduleWithFixedDelay(this::policyTick, tick, tick, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The policy tick: asks the policy for merges although nothing was flushed or merged, so
     * time-based triggers (file or tombstone age) fire on an idle store.
     */
    private void policyTick() {
        mutex.lock();
        try {
            if (!closed) {
                scheduleMerges();
                background.signalAll();
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
        writeTimed(batch);
        metrics.recordWrite(System.nanoTime() - t0);
    }

    private void writeTimed(WriteBatch batch) {
        validate(batch);
        if (batch.isEmpty()) {
            checkOpen();
            return;
        }
        mutex.lock();
        try {
            Writer w = new Writer(batch, mutex.newCondition());
            writers.addLast(w);
            while (!w.done && writers.peekFirst() != w) {
                w.turn.awaitUninterruptibly();
            }
            if (w.done) {
                if (w.error != null) {
                    throw w.error;
                }
                return;
            }
            RuntimeException failure = leadGroup(w);
            if (failure != null) {
                throw failure;
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Writes the group that {@code leader}, at the head of the queue, leads: itself and the
     * writers queued behind it up to the first barrier (and {@link #MAX_GROUP_BYTES}).
     * Called with the mutex held; returns with it held, having taken every member off the
     * queue, told each the outcome and woken the new head, whatever was thrown on the way:
     * an {@link Error} from the WAL or the memtable must not strand the queue.
     *
     * @return null, or the error every member of the group reports
     */
    private RuntimeException leadGroup(Writer leader) {
        List<Writer> group = List.of(leader);
        RuntimeException failure = null;
        try {
            makeRoomForWrite();
            group = groupFrom(leader);
            failure = applyGroup(group);
        } catch (Throwable t) {
            failure = writeError(t);
        } finally {
            for (Writer x : group) {
                writers.remove(x);
                x.error = failure;
                x.done = true;
                if (x != leader) {
                    x.turn.signal();
                }
            }
            Writer next = writers.peekFirst();
            if (next != null) {
                next.turn.signal();
            }
        }
        return failure;
    }

    /** The leader and the writers behind it that join its group. Called with the mutex held. */
    private List<Writer> groupFrom(Writer leader) {
        List<Writer> group = new ArrayList<>();
        group.add(leader);
        long bytes = leader.batch.approximateBytes();
        Iterator<Writer> it = writers.iterator();
        it.next(); // the leader
        while (it.hasNext()) {
            Writer x = it.next();
            if (x.isBarrier() || bytes + x.batch.approximateBytes() > MAX_GROUP_BYTES) {
                break;
            }
            group.add(x);
            bytes += x.batch.approximateBytes();
        }
        return group;
    }

    /**
     * Gives the group its sequence numbers, then with the mutex released appends it to the
     * WAL and inserts it into the memtable. Called with the mutex held; returns with it held.
     *
     * @return null, or the error the group failed with
     */
    private RuntimeException applyGroup(List<Writer> group) {
        int count = 0;
        List<WriteBatch> batches = new ArrayList<>(group.size());
        for (Writer x : group) {
            batches.add(x.batch);
            count += x.batch.size();
        }
        long first = lastSequence + 1;
        lastSequence += count;
        Memtable mem = memtables.active();
        WalWriter log = wal;
        Runnable hook = memtableInsertHook;
        boolean logged = false;
        Throwable error = null;
        mutex.unlock();
        try {
            if (log != null) {
                byte[] scratch = walScratch(BatchCodec.maxEncodedSize(batches));
                log.append(scratch, 0, BatchCodec.encode(batches, first, count, scratch));
            }
            logged = true;
            long seq = first;
            for (WriteBatch b : batches) {
                for (WriteBatch.Op op : b.ops()) {
                    if (hook != null) {
                        hook.run();
                    }
                    mem.add(op.key(), seq++, op.delete() ? EntryType.DELETE : EntryType.PUT, op.value());
                }
            }
        } catch (Throwable t) {
            error = t;
        } finally {
            mutex.lock();
        }
        if (error == null) {
            visibleSequence = lastSequence;
            return null;
        }
        RuntimeException failure = writeError(error);
        if (!logged) {
            if (log != null) {
                // The segment may end in a torn record: switch to a fresh one before the next write.
                walFailed = true;
            }
        } else {
            // The memtable holds part of the group, invisible above visibleSequence, which
            // must therefore stay where it is: no later write may be applied. Flushes skip
            // the part (see writeFlushTable); a reopen replays the WAL record whole.
            writesRefused = new StoreException("writes to " + dir + " are refused until the store is reopened: a "
                    + "write failed while it was being inserted into the memtable" + (log != null
                    ? ", after the WAL had taken it (reopening recovers that write whole or not at all)" : "")
                    + ": " + error, error);
            LOG.log(System.Logger.Level.ERROR, writesRefused.getMessage(), error);
        }
        return failure;
    }

    /** What the writers of a failed group are told: a {@link StoreException} (its type kept), naming the cause. */
    private static RuntimeException writeError(Throwable t) {
        return t instanceof StoreException e ? e : new StoreException("write failed: " + t, t);
    }

    /**
     * For tests: runs {@code hook} before each insert into the memtable (null: none), to
     * inject failures between the WAL append and the memtable.
     */
    void memtableInsertHook(Runnable hook) {
        mutex.lock();
        try {
            memtableInsertHook = hook;
        } finally {
            mutex.unlock();
        }
    }

    /**
     * The leader's buffer for encoding a write group, at least {@code size} bytes. Only the
     * write-group leader uses it, and leaders follow one another under the mutex.
     */
    private byte[] walScratch(int size) {
        byte[] b = walScratch;
        if (b.length < size || (b.length > RETAINED_WAL_SCRATCH && size <= RETAINED_WAL_SCRATCH)) {
            b = new byte[Math.max(size, INITIAL_WAL_SCRATCH)];
            walScratch = b;
        }
        return b;
    }

    private void validate(WriteBatch batch) {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        int maxKey = config.maxKeyBytes();
        for (WriteBatch.Op op : batch.ops()) {
            if (op.key().length > maxKey) {
                throw new IllegalArgumentException("key of " + op.key().length + " bytes exceeds the maximum key size of "
                        + maxKey + " bytes (pageSize " + config.pageSize() + " / 4 - 32)");
            }
            if (!op.delete() && op.value().length > config.maxValueBytes()) {
                throw new IllegalArgumentException("value of " + op.value().length
                        + " bytes exceeds the maximum value size of " + config.maxValueBytes() + " bytes (maxValueBytes)");
            }
        }
    }

    /**
     * Called by the write-group leader with the mutex held: waits while the memtable backlog
     * or the policy stops writes, and switches a full memtable out.
     */
    private void makeRoomForWrite() {
        boolean slowedDown = false;
        while (true) {
            checkOpen();
            if (writesRefused != null) {
                throw new StoreException(writesRefused.getMessage(), writesRefused.getCause());
            }
            if (walFailed) {
                rotateWal();
            }
            MemtableSet m = memtables;
            if (admission == WriteAdmission.SLOW_DOWN && !slowedDown) {
                slowedDown = true;
                long t0 = System.nanoTime();
                awaitBackground(1);
                stallNanos.add(System.nanoTime() - t0);
                continue;
            }
            if (m.active().approximateBytes() < config.memtableBytes()) {
                return;
            }
            if (decisionPending) {
                // The policy is deciding after the last flush or merge: its admission first.
                awaitBackground(100);
                continue;
            }
            boolean backlogFull = m.immutable().size() >= config.maxImmutableMemtables();
            if (backlogFull && flushError != null) {
                throw new StoreException("writes are stopped: flushing to " + dir + " keeps failing (the store stays "
                        + "readable and retries in the background): " + flushError, flushError);
            }
            if (backlogFull || admission == WriteAdmission.STOP) {
                long t0 = System.nanoTime();
                awaitBackground(100);
                stallNanos.add(System.nanoTime() - t0);
                continue;
            }
            switchMemtable();
        }
    }

    private void awaitBackground(long millis) {
        try {
            background.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for background work", e);
        }
    }

    /** Makes the active memtable immutable, starts a new WAL segment for its successor, and schedules a flush. */
    private void switchMemtable() {
        long segment = versions.newFileNumber();
        if (config.walMode() != WalSyncMode.NONE) {
            WalWriter next = WalWriter.create(io, dir, segment, config.walMode());
            closeWal();
            wal = next;
            walFailed = false;
        }
        MemtableSet m = memtables;
        List<Memtable> imm = new ArrayList<>(m.immutable().size() + 1);
        imm.add(m.active());
        imm.addAll(m.immutable());
        memtables = new MemtableSet(new Memtable(segment), List.copyOf(imm));
        scheduleFlush();
    }

    /** After a WAL write failed: continue in a new segment; the memtable keeps what it has. */
    private void rotateWal() {
        long segment = versions.newFileNumber();
        WalWriter next = WalWriter.create(io, dir, segment, config.walMode());
        closeWal();
        wal = next;
        walFailed = false;
    }

    private void closeWal() {
        if (wal != null) {
            try {
                wal.close();
            } catch (RuntimeException e) {
                // A failed writer reports its failure again on close; its acknowledged records are on disk.
                LOG.log(System.Logger.Level.DEBUG, "closing WAL segment failed", e);
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreClosedException("store " + dir + " is closed");
        }
    }

    // ------------------------------------------------------------------ flushes

    private void scheduleFlush() {
        if (flushRunning || closed && config.walMode() != WalSyncMode.NONE || memtables.immutable().isEmpty()) {
            return;
        }
        flushRunning = true;
        flushLane.execute(this::flushOldest);
    }

    private void flushOldest() {
        Memtable m;
        long nextSegment;
        long[] snaps;
        long visible;
        mutex.lock();
        try {
            List<Memtable> imm = memtables.immutable();
            m = imm.get(imm.size() - 1);
            nextSegment = imm.size() > 1 ? imm.get(imm.size() - 2).walSegment() : memtables.active().walSegment();
            snaps = liveSnapshots();
            visible = visibleSequence;
        } finally {
            mutex.unlock();
        }
        Component flushed = null;
        long flushStart = System.nanoTime();
        try {
            versions.ensureIntactTail(); // no new tables while a crash would leave a torn manifest
            flushed = m.isEmpty() ? null : writeFlushTable(m, snaps, visible);
            long maxSeq = m.maxSeqno();
            if (flushed == null) {
                versions.logAndApply(base -> new VersionSet.Change(base.levels(), List.of(), List.of(),
                        base.flushCounter(), currentPolicyState(), nextSegment, maxSeq));
            } else {
                installFlush(flushed, nextSegment, maxSeq);
                flushCount.incrementAndGet();
                metrics.recordFlush(System.nanoTime() - flushStart);
            }
        } catch (Throwable e) {
            // Any Throwable: a flush that ends without this bookkeeping would leave flushRunning
            // set for good, and flush() and close() waiting for it forever.
            LOG.log(System.Logger.Level.WARNING, "flush to " + dir + " failed; will retry", e);
            if (flushed != null) {
                obsolete.deleteUninstalled(flushed.meta().fileNumber());
            }
            mutex.lock();
            try {
                flushError = e;
                flushFailures++;
                flushRunning = false;
                background.signalAll();
                long delay = Math.min(MAX_RETRY_DELAY_MS, 10L << Math.min(flushFailures, 7));
                if (!closed) {
                    flushLane.schedule(this::retryFlush, delay, TimeUnit.MILLISECONDS);
                }
            } finally {
                mutex.unlock();
            }
            return;
        }
        mutex.lock();
        try {
            List<Memtable> imm = new ArrayList<>(memtables.immutable());
            imm.remove(imm.size() - 1);
            memtables = new MemtableSet(memtables.active(), List.copyOf(imm));
            if (flushed != null) {
                obsolete.settled(flushed.meta().fileNumber());
            }
            flushError = null;
            flushFailures = 0;
            flushRunning = false;
            scheduleFlush();
            scheduleMerges();
            background.signalAll();
        } finally {
            mutex.unlock();
        }
        obsolete.deleteObsoleteWal();
    }

    private void retryFlush() {
        mutex.lock();
        try {
            scheduleFlush();
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Writes memtable {@code m} as one table, keeping of each key only the versions that the
     * snapshots {@code snaps} (ascending) or a new read could see: the newest, and the newest
     * at or below each snapshot. Every version in {@code m} is at or below the visible
     * sequence number {@code visible}, so a snapshot taken later sees the newest — except
     * the part of a write group that failed while it was inserted (see
     * {@link #writesRefused}), which lies above it and is left out. Tombstones stay: older
     * data for their keys may lie in components below.
     */
    private Component writeFlushTable(Memtable m, long[] snaps, long visible) throws IOException {
        InternalIterator it = new SequenceBoundIterator(m.iterator(), visible);
        it.seekToFirst();
        List<Component> out = output.write(it, IoPurpose.FLUSH, new OutputCutter(OutputSpec.singleFile(), List.of(), List.of()),
                new VersionRetention(snaps, false));
        return out.isEmpty() ? null : out.get(0);
    }

    /**
     * Installs a flushed table as the policy plans: first any merges the plan needs, then
     * either the table itself at the planned placement, or the merge of the table with the
     * planned components (the table file is then dropped, never having been visible).
     */
    private void installFlush(Component flushed, long nextSegment, long maxSeq) throws IOException {
        Claimed claimed = claimFlushPlan(flushed);
        FlushPlan plan = claimed.plan;
        try {
            for (int i = 0; i < plan.mergesFirst().size(); i++) {
                MergeTask task = plan.mergesFirst().get(i);
                long bytes = mergeAndInstall(task, claimed.firstInputs.get(i), claimed.firstBottommost.get(i),
                        claimed.snapshots, null, 0, 0);
                mergeCount.incrementAndGet();
                listener.merged(task.inputs().size(), bytes);
            }
            if (!plan.merges()) {
                Placement p = plan.placement();
                versions.logAndApply(base -> {
                    List<List<Run>> levels;
                    try {
                        levels = Layouts.apply(base, Set.of(), List.of(flushed), p, versions::newRunId);
                        Layouts.checkChange(base, List.of(flushed), List.of(flushed), levels);
                    } catch (Layouts.PolicyError e) {
                        policyErrors.incrementAndGet();
                        LOG.log(System.Logger.Level.ERROR, "merge policy " + config.mergePolicy()
                                + " placed a flush badly (" + e.getMessage() + "); using a new newest run of level 0");
                        levels = Layouts.apply(base, Set.of(), List.of(flushed), Placement.newRun(0), versions::newRunId);
                    }
                    return new VersionSet.Change(levels, List.of(flushed), List.of(), base.flushCounter() + 1,
                            currentPolicyState(), nextSegment, maxSeq);
                });
                listener.flushed(versions.current().flushCounter(), flushed.meta().sizeBytes(), 0);
            } else {
                List<Component> inputs = new ArrayList<>(claimed.mergeInputs);
                inputs.add(0, flushed);
                MergeTask task = MergeTask.rewrite(plan.mergeWith(), plan.placement(), plan.output(), plan.reason());
                long bytes = mergeAndInstall(task, inputs, claimed.mergeBottommost, claimed.snapshots, flushed,
                        nextSegment, maxSeq);
                obsolete.deleteUninstalled(flushed.meta().fileNumber());
                mergeCount.incrementAndGet();
                listener.flushed(versions.current().flushCounter(), flushed.meta().sizeBytes(), bytes);
            }
        } finally {
            mutex.lock();
            try {
                claimed.ids.forEach(busy::remove);
                running.remove(claimed);
                obsolete.settled(flushed.meta().fileNumber());
                background.signalAll();
            } finally {
                mutex.unlock();
            }
        }
    }

    /** A flush plan whose inputs this flush job has marked busy. */
    private record Claimed(FlushPlan plan, Set<ComponentId> ids, List<Component> mergeInputs, boolean mergeBottommost,
                           List<List<Component>> firstInputs, List<Boolean> firstBottommost, long[] snapshots) {
    }

    /**
     * Asks the policy for the flush plan and claims its inputs, waiting while any of them
     * is in a running merge. An unusable plan is a policy error: the flush then becomes a
     * new newest run of level 0.
     */
    private Claimed claimFlushPlan(Component flushed) {
        mutex.lock();
        try {
            while (true) {
                Version v = versions.current();
                TreeView view = treeView(v, flushed);
                ComponentView fv = ComponentViews.of(flushed, false);
                FlushPlan plan;
                // The policy plans without the mutex (a decision on the decider may hold the
                // policy; writers must not wait for either); the plan is then checked against
                // the version current again, and made anew if that changed meanwhile.
                mutex.unlock();
                try {
                    policyLock.lock();
                    try {
                        plan = policy.planFlush(view, fv);
                    } finally {
                        policyLock.unlock();
                    }
                } catch (RuntimeException e) {
                    policyErrors.incrementAndGet();
                    LOG.log(System.Logger.Level.ERROR, "merge policy " + config.mergePolicy() + " failed to plan a flush", e);
                    plan = FlushPlan.newComponent(Placement.newRun(0), "fallback after policy failure");
                } finally {
                    mutex.lock();
                }
                if (versions.current() != v) {
                    continue;
                }
                Set<ComponentId> ids = new HashSet<>(plan.mergeWith());
                plan.mergesFirst().forEach(t -> ids.addAll(t.inputs()));
                String problem = null;
                for (ComponentId id : ids) {
                    if (v.find(id) == null) {
                        problem = "component " + id + " does not exist";
                    }
                }
                if (problem == null && ids.stream().anyMatch(busy::contains)) {
                    // A merge the plan needs to build on is still running: wait for it.
                    awaitBackground(10);
                    checkOpen();
                    continue;
                }
                if (problem == null && plan.merges()) {
                    problem = TaskValidation.problem(v, MergeTask.rewrite(plan.mergeWith(), plan.placement(),
                            plan.output(), plan.reason()), flushed, busy, Set.of());
                }
                Set<ComponentId> claimedSoFar = new HashSet<>();
                for (MergeTask t : plan.mergesFirst()) {
                    if (problem == null) {
                        problem = validate(v, t, claimedSoFar);
                        claimedSoFar.addAll(t.inputs());
                    }
                }
                if (problem != null) {
                    policyErrors.incrementAndGet();
                    LOG.log(System.Logger.Level.ERROR, "rejected flush plan from policy " + config.mergePolicy() + ": "
                            + problem + " in " + plan);
                    plan = FlushPlan.newComponent(Placement.newRun(0), "fallback after a rejected plan");
                    ids.clear();
                }
                busy.addAll(ids);
                long[] snaps = liveSnapshots();
                List<Component> mergeInputs = plan.mergeWith().stream().map(v::find).toList();
                boolean bottommost = false;
                if (plan.merges()) {
                    List<Component> all = new ArrayList<>(mergeInputs);
                    all.add(flushed);
                    bottommost = Layouts.isBottommost(v, ids, plan.placement(), minKey(all), maxKey(all));
                }
                List<List<Component>> firstInputs = new ArrayList<>();
                List<Boolean> firstBottommost = new ArrayList<>();
                for (MergeTask t : plan.mergesFirst()) {
                    List<Component> in = t.inputs().stream().map(v::find).toList();
                    firstInputs.add(in);
                    firstBottommost.add(Layouts.isBottommost(v, new HashSet<>(t.inputs()), t.placement(), minKey(in),
                            maxKey(in)));
                }
                Claimed claim = new Claimed(plan, ids, mergeInputs, bottommost, firstInputs, firstBottommost, snaps);
                List<RunningMerge> merges = new ArrayList<>();
                for (int i = 0; i < plan.mergesFirst().size(); i++) {
                    MergeTask t = plan.mergesFirst().get(i);
                    merges.add(new RunningMerge(t.inputs(), t.placement(), t.mode(), bytesOf(firstInputs.get(i)),
                            t.reason()));
                }
                if (plan.merges()) {
                    merges.add(new RunningMerge(plan.mergeWith(), plan.placement(), MergeMode.REWRITE,
                            bytesOf(mergeInputs) + flushed.meta().sizeBytes(), plan.reason()));
                }
                if (!merges.isEmpty()) {
                    running.put(claim, List.copyOf(merges));
                }
                return claim;
            }
        } finally {
            mutex.unlock();
        }
    }

    private static long bytesOf(List<Component> cs) {
        long bytes = 0;
        for (Component c : cs) {
            bytes += c.meta().sizeBytes();
        }
        return bytes;
    }

    private static byte[] minKey(List<Component> cs) {
        return cs.stream().map(c -> c.meta().minKey()).min(Arrays::compareUnsigned).orElseThrow();
    }

    private static byte[] maxKey(List<Component> cs) {
        return cs.stream().map(c -> c.meta().maxKey()).max(Arrays::compareUnsigned).orElseThrow();
    }


    // ------------------------------------------------------------------ merges

    private byte[] currentPolicyState() {
        mutex.lock();
        try {
            return policyState;
        } finally {
            mutex.unlock();
        }
    }

    /** Builds the policy's view of {@code v}, marking components in running merges busy. */
    private TreeView treeView(Version v, Component... extra) {
        List<RunningMerge> merges = new ArrayList<>();
        running.values().forEach(merges::addAll);
        return new TreeView(ComponentViews.levels(v, busy::contains), v.flushCounter(), policyState,
                ComponentViews.estimator(v, extra), merges, System.currentTimeMillis());
    }

    /**
     * Asks for a policy decision: the policy picks merges on {@link #decider}, off the write
     * mutex, and the valid ones start. Called with the mutex held; a request made while a
     * decision runs makes it decide again once it ends, with a fresh view.
     */
    private void scheduleMerges() {
        if (closed) {
            return;
        }
        if (decisionPending) {
            decisionAgain = true;
            return;
        }
        decisionPending = true;
        try {
            decider.execute(this::decide);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            decisionPending = false; // shutting down
        }
    }

    /**
     * One or more policy decisions: a view taken under the mutex, the policy consulted
     * without it (writers, flushes and merges go on meanwhile), then the tasks validated
     * against the version current by then and started under the mutex. Writers about to
     * switch a memtable wait for it (see {@link #makeRoomForWrite}), so admission is never
     * older than the last flush or merge.
     */
    private void decide() {
        boolean done = false;
        try {
            while (!done) {
                done = decideOnce();
            }
        } finally {
            if (!done) {
                // Something threw (an Error in the policy, say): a decision left pending would
                // hold every writer at its next memtable switch. Nothing is pending any more.
                mutex.lock();
                try {
                    decisionPending = false;
                    admission = WriteAdmission.GO;
                    background.signalAll();
                } finally {
                    mutex.unlock();
                }
            }
        }
    }

    /** One decision; true when no other is wanted (see {@link #decide}). */
    private boolean decideOnce() {
        TreeView view;
        mutex.lock();
        try {
            if (closed) {
                decisionPending = false;
                background.signalAll();
                return true;
            }
            decisionAgain = false;
            view = treeView(versions.current());
        } finally {
            mutex.unlock();
        }
        List<MergeTask> tasks = null;
        WriteAdmission decided = WriteAdmission.GO;
        byte[] state = null;
        Throwable failure = null;
        policyLock.lock();
        try {
            tasks = policy.pickMerges(view);
            decided = policy.admission(view);
            state = policy.persistentState(view);
        } catch (RuntimeException | StackOverflowError e) {
            failure = e;
        } finally {
            policyLock.unlock();
        }
        mutex.lock();
        try {
            if (failure != null) {
                policyErrors.incrementAndGet();
                LOG.log(System.Logger.Level.ERROR, "merge policy " + config.mergePolicy() + " failed", failure);
                admission = WriteAdmission.GO;
            } else if (!closed) {
                admission = decided;
                policyState = state == null ? new byte[0] : state;
                startMerges(tasks);
            }
            if (!decisionAgain || closed) {
                decisionPending = false;
                background.signalAll();
                return true;
            }
            return false;
        } finally {
            mutex.unlock();
        }
    }

    /** Validates the policy's tasks against the current version and starts the valid ones. Mutex held. */
    private void startMerges(List<MergeTask> tasks) {
        Version v = versions.current();
        Set<ComponentId> claimed = new HashSet<>();
        // Higher priority first, then in the order the policy picked (a stable sort): the pool
        // starts them in submission order.
        List<MergeTask> ordered = new ArrayList<>(tasks);
        ordered.sort(Comparator.comparingInt(MergeTask::priority).reversed());
        for (MergeTask task : ordered) {
            String problem = validate(v, task, claimed);
            if (problem != null) {
                policyErrors.incrementAndGet();
                LOG.log(System.Logger.Level.ERROR, "rejected merge from policy " + config.mergePolicy() + ": "
                        + problem + " in " + task);
                continue;
            }
            claimed.addAll(task.inputs());
            busy.addAll(task.inputs());
            List<Component> inputs = task.inputs().stream().map(v::find).toList();
            byte[] min = inputs.stream().map(c -> c.meta().minKey()).min(Arrays::compareUnsigned).orElseThrow();
            byte[] max = inputs.stream().map(c -> c.meta().maxKey()).max(Arrays::compareUnsigned).orElseThrow();
            boolean bottommost = Layouts.isBottommost(v, new HashSet<>(task.inputs()), task.placement(), min, max);
            long[] snaps = liveSnapshots();
            mergesRunning++;
            running.put(task, List.of(new RunningMerge(task.inputs(), task.placement(), task.mode(), bytesOf(inputs),
                    task.reason())));
            pool.execute(() -> runMerge(task, inputs, bottommost, snaps));
        }
        if (admission != WriteAdmission.GO && mergesRunning == 0 && !flushRunning && !decisionAgain) {
            // Nothing running could change the policy's mind: writers held back now would wait
            // for good (torture: a policy whose every merge was rejected, and writes stopped).
            // A policy error, not a hang: writes proceed until the policy asks for a merge that runs.
            policyErrors.incrementAndGet();
            String message = "merge policy " + config.mergePolicy() + " answered " + admission
                    + " with no merge running or accepted; writes proceed";
            if (!message.equals(lastAdmissionOverride)) {
                lastAdmissionOverride = message;
                LOG.log(System.Logger.Level.ERROR, message + " (" + tasks.size() + " task(s) asked for)");
            }
            admission = WriteAdmission.GO;
        }
    }



    /** Why {@code task} is unacceptable, or null (see {@link TaskValidation}). */
    private String validate(Version v, MergeTask task, Set<ComponentId> claimed) {
        return TaskValidation.problem(v, task, null, busy, claimed);
    }

    private void runMerge(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps) {
        boolean ok = false;
        long mergeStart = System.nanoTime();
        try {
            versions.ensureIntactTail(); // no new tables while a crash would leave a torn manifest
            long bytes = task.mode() == MergeMode.MOVE ? moveAndInstall(task)
                    : mergeAndInstall(task, inputs, bottommost, snaps, null, 0, 0);
            ok = true;
            mergeCount.incrementAndGet();
            metrics.recordMerge(System.nanoTime() - mergeStart);
            listener.merged(inputs.size(), bytes);
        } catch (Layouts.PolicyError e) {
            policyErrors.incrementAndGet();
            LOG.log(System.Logger.Level.ERROR, "merge " + task + " could not be installed: " + e.getMessage());
        } catch (RuntimeException | IOException e) {
            LOG.log(System.Logger.Level.WARNING, "merge " + task + " in " + dir + " failed; will retry", e);
        } finally {
            mutex.lock();
            try {
                task.inputs().forEach(busy::remove);
                running.remove(task);
                mergesRunning--;
                if (ok) {
                    mergeFailures = 0;
                    scheduleMerges();
                } else if (!closed) {
                    mergeFailures++;
                    mergeRetryPending = true;
                    long delay = Math.min(MAX_RETRY_DELAY_MS, 10L << Math.min(mergeFailures, 7));
                    pool.schedule(this::retryMerges, delay, TimeUnit.MILLISECONDS);
                }
                background.signalAll();
            } finally {
                mutex.unlock();
            }
        }
    }

    /**
     * Executes a {@link MergeMode#MOVE}: the inputs' files go to the task's placement by a
     * version edit alone; nothing is read or written but the manifest record.
     */
    private long moveAndInstall(MergeTask task) throws IOException {
        Set<ComponentId> removed = new HashSet<>(task.inputs());
        versions.logAndApply(base -> {
            List<Component> moved = task.inputs().stream().map(base::find).toList();
            List<List<Run>> levels = Layouts.apply(base, removed, moved, task.placement(), versions::newRunId);
            Layouts.checkChange(base, moved, moved, levels);
            return new VersionSet.Change(levels, List.of(), List.of(), base.flushCounter(), currentPolicyState(), 0, 0);
        });
        return 0;
    }

    /**
     * Merges {@code inputs} into new tables and installs them in place of the task's
     * inputs. With {@code flushed} set, this completes a flush: {@code flushed} (not in any
     * version) is among the inputs, and the edit also counts the flush and moves the log
     * number. Outputs are deleted if anything fails.
     */
    private long mergeAndInstall(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps,
                                 Component flushed, long nextSegment, long maxSeq) throws IOException {
        List<Component> outputs = List.of();
        List<PageFile> handles = new ArrayList<>();
        boolean installed = false;
        try {
            List<InternalIterator> its = new ArrayList<>();
            for (Component c : inputs) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ, IoPurpose.MERGE);
                handles.add(f);
                its.add(SSTableReader.open(f, c.id().footerOffset(), c.meta().fileNumber(), BlockCache.disabled())
                        .iterator());
            }
            MergingIterator merged = new MergingIterator(its);
            merged.seekToFirst();
            outputs = ComponentTimes.inherit(output.write(merged, IoPurpose.MERGE, TableOutput.cutterFor(versions.current(), task),
                    new VersionRetention(snaps, bottommost)), inputs);
            List<Component> out = outputs;
            Set<ComponentId> removed = new HashSet<>(task.inputs());
            versions.logAndApply(base -> {
                List<List<Run>> levels = Layouts.apply(base, removed, out, task.placement(), versions::newRunId);
                Layouts.checkChange(base, inputs, out, levels);
                return new VersionSet.Change(levels, out, List.copyOf(task.inputs()),
                        base.flushCounter() + (flushed == null ? 0 : 1), currentPolicyState(),
                        flushed == null ? 0 : nextSegment, flushed == null ? 0 : maxSeq);
            });
            installed = true;
            long bytes = 0;
            for (Component c : out) {
                bytes += c.meta().sizeBytes();
            }
            return bytes;
        } finally {
            for (PageFile f : handles) {
                try {
                    f.close();
                } catch (IOException ignored) {
                    // Read handle.
                }
            }
            if (!installed) {
                for (Component c : outputs) {
                    obsolete.deleteUninstalled(c.meta().fileNumber());
                }
            } else {
                mutex.lock();
                try {
                    for (Component c : outputs) {
                        obsolete.settled(c.meta().fileNumber());
                    }
                } finally {
                    mutex.unlock();
                }
            }
        }
    }

    private void retryMerges() {
        mutex.lock();
        try {
            mergeRetryPending = false;
            scheduleMerges();
            background.signalAll();
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
        checkOpen();
        metrics.recordGet();
        return lookup(key, seq, memtables);
    }

    /**
     * The newest value of {@code key}, or null. The memtables are read before the visible
     * sequence number: a flush or merge drops versions that no snapshot and no read
     * starting after its memtable was switched out can see, and a read that took its
     * sequence number before that switch reads the switched-out memtable itself.
     */
    public byte[] getLatest(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        checkOpen();
        metrics.recordGet();
        MemtableSet m = memtables;
        return lookup(key, visibleSequence, m);
    }

    private byte[] lookup(byte[] key, long seq, MemtableSet m) {
        InternalEntry e = ReadPath.fromMemtables(m, key, seq);
        if (e == null) {
            Version v = versions.acquire();
            try {
                e = ReadPath.fromVersion(v, key, seq);
            } catch (IOException ex) {
                // A read racing close() finds the files closed: report it as what it is.
                checkOpen();
                throw new StoreException("read of " + dev.strata.lsm.sstable.InternalKeys.describe(key)
                        + " failed: " + ex, ex);
            } finally {
                v.release();
            }
        }
        return e == null || e.isTombstone() ? null : e.value();
    }

    /** A cursor over live keys in [from, to) at {@code seq}. */
    public Cursor scan(byte[] from, byte[] to, long seq) {
        checkOpen();
        return scan(from, to, memtables, versions.acquire(), seq);
    }

    /**
     * A cursor over the newest data: like {@link #scan(byte[], byte[], long)} at the visible
     * sequence number, read after the memtables and version (see {@link #getLatest}).
     */
    public Cursor scanLatest(byte[] from, byte[] to) {
        checkOpen();
        MemtableSet m = memtables;
        Version v = versions.acquire();
        return scan(from, to, m, v, visibleSequence);
    }

    private Cursor scan(byte[] from, byte[] to, MemtableSet m, Version v, long seq) {
        return ReadPath.scan(m, v, seq, from, to, v::release, this::checkOpen);
    }

    /** The sequence number a new read or snapshot sees. */
    public long visibleSequence() {
        return visibleSequence;
    }

    /** Sequence numbers of the live snapshots, ascending. Called with the mutex held. */
    private long[] liveSnapshots() {
        return snapshots.live();
    }

    /** Registers a snapshot at the current visible sequence number and returns it. */
    public long acquireSnapshot() {
        mutex.lock();
        try {
            checkOpen();
            long seq = visibleSequence;
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
            checkOpen();
            // Take the writer queue's turn so no write group is between WAL and memtable.
            Writer w = awaitBarrierTurn();
            try {
                checkOpen();
                if (!memtables.active().isEmpty()) {
                    switchMemtable();
                }
            } finally {
                leaveQueue(w);
            }
            // Wait for the memtables there are now, not for those that writers keep switching
            // out meanwhile: under steady writes the backlog is rarely empty. Flushes go
            // oldest first, so the newest of them going is enough.
            List<Memtable> backlog = memtables.immutable();
            Memtable newest = backlog.isEmpty() ? null : backlog.get(0);
            int kicks = 0;
            while (newest != null && memtables.immutable().contains(newest)) {
                checkOpen();
                if (flushError != null && !flushRunning) {
                    // One fresh attempt on behalf of this caller; a second failure is reported.
                    if (kicks++ > 0) {
                        throw new StoreException("flush of " + dir + " failed: " + flushError, flushError);
                    }
                    scheduleFlush();
                }
                awaitBackground(100);
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Queues a barrier and waits until it is at the head of the write queue: every write
     * queued before it is done, and later ones wait. Called with the mutex held; pass the
     * result to {@link #leaveQueue}.
     */
    private Writer awaitBarrierTurn() {
        Writer w = new Writer(null, mutex.newCondition());
        writers.addLast(w);
        while (writers.peekFirst() != w) {
            w.turn.awaitUninterruptibly();
        }
        return w;
    }

    /** Takes {@code w}, at the head of the write queue, off it and wakes the next in line. Called with the mutex held. */
    private void leaveQueue(Writer w) {
        writers.remove(w);
        Writer next = writers.peekFirst();
        if (next != null) {
            next.turn.signal();
        }
    }

    /** Waits until no flush or merge runs and the policy wants no more merges. */
    public void awaitMerges() {
        mutex.lock();
        try {
            while (flushRunning || !memtables.immutable().isEmpty() || mergesRunning > 0 || mergeRetryPending
                    || decisionPending) {
                checkOpen();
                awaitBackground(100);
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Counters and gauges. */
    public StoreStats stats() {
        Version v = versions.acquire();
        try {
            long bytes = 0;
            for (Component c : v.components()) {
                bytes += c.meta().sizeBytes();
            }
            MemtableSet m = memtables;
            long memBytes = m.active().approximateBytes();
            for (Memtable imm : m.immutable()) {
                memBytes += imm.approximateBytes();
            }
            // The pinned version's files are open, so the held files are at least its components.
            long fileBytes = Math.max(bytes, tables.fileBytes());
            return new StoreStats(io.counters().snapshot(), fileBytes, bytes, LiveDataEstimate.of(v),
                    v.componentCounts(), flushCount.get(), mergeCount.get(), stallNanos.sum(), memBytes,
                    visibleSequence, policyErrors.get(),
                    v.components().stream().mapToLong(c -> c.meta().fileNumber()).distinct().sorted().toArray());
        } finally {
            v.release();
        }
    }

    /** Merge tasks the policy proposed that the engine rejected. */
    public long policyErrors() {
        return policyErrors.get();
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
            if (closed) {
                return;
            }
            // Writes queued before close() finish first; later ones find the store closed.
            Writer w = awaitBarrierTurn();
            try {
                if (closed) {
                    return;
                }
                if (config.walMode() == WalSyncMode.NONE && !memtables.active().isEmpty()) {
                    // Without a WAL the memtable is the only copy: flush it.
                    switchMemtable();
                }
                if (config.walMode() == WalSyncMode.NONE) {
                    // One fresh attempt after a failure, as flush() makes; then close reports the loss.
                    int attempts = 0;
                    while (!memtables.immutable().isEmpty()) {
                        if (flushError != null && !flushRunning) {
                            if (attempts++ > 0) {
                                unflushed = flushError;
                                break;
                            }
                            scheduleFlush();
                        }
                        awaitBackground(100);
                    }
                }
                closed = true;
                background.signalAll();
            } finally {
                leaveQueue(w);
            }
            while (flushRunning || mergesRunning > 0 || decisionPending) {
                awaitBackground(100);
            }
            closeWal();
        } finally {
            mutex.unlock();
        }
        shutdownQuietly();
        if (unflushed != null) {
            throw new StoreException("store " + dir + " is closed without its last writes: WAL mode none keeps them"
                    + " only in memory, and flushing them failed: " + unflushed, unflushed);
        }
    }

    private void shutdownQuietly() {
        closed = true;
        flushLane.shutdownNow();
        pool.shutdownNow();
        decider.shutdownNow();
        try {
            flushLane.awaitTermination(10, TimeUnit.SECONDS);
            pool.awaitTermination(10, TimeUnit.SECONDS);
            decider.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            versions.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing manifest failed", e);
        }
        // After a failed open, recovery may have started a WAL segment; after close() this is a no-op.
        closeWal();
        tables.closeAll();
        metrics.close();
        dirLock.close();
    }
}
