package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.BlockCompactionStats;
import dev.strata.lsm.StallChainStats;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.mergeop.MergeOperator;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.LiveDataEstimate;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One column family's tree (RocksDB's {@code ColumnFamilyData}): its tables and version set
 * (its own directory and manifest, which records its tables and its WAL replay point), its
 * memtables, merge policy, merge scheduler, flush lane, write admission and read path. The
 * parts every family shares — the WAL and sequence numbers ({@link WalLog}), the mutex, the
 * threads, the block cache, snapshots, the merge operator — are the {@link Shared} the engine
 * hands in. The default family's tree is the store directory's, exactly what a store was
 * before families existed.
 *
 * <p>Locking: as the engine's (its parts are guarded by the shared mutex); {@link #dropped}
 * is set under it.
 */
final class Tree {
    /** What every tree of a store shares. */
    record Shared(Path storeDir, CountingStorageIO io, BlockCache cache, EngineMutex mutex, BackgroundThreads threads,
                  StoreMetrics metrics, Snapshots snapshots, StoreListener listener, MergeOperator operator, WalLog log,
                  AtomicInteger queuedSweeps, java.util.function.LongSupplier walKeepFrom, Runnable memtablesChanged) {
    }

    final int id;
    final String name;
    final Path dir;
    final StoreConfig config;
    final TableFiles tables;
    final VersionSet versions;
    final EngineCounters counters = new EngineCounters();
    final ObsoleteFiles obsolete;
    final TableOutput output;
    final Memtables memtables;
    final PolicyBridge policy;
    final MergeScheduler scheduler;
    final FlushJob flushJob;
    final FlushLane flushLane;
    final WriteControl writeControl;
    final ReadPath reads;
    private final Shared shared;
    /** The family's meters ({@code family} tag), removed when it is dropped. */
    volatile java.util.List<io.micrometer.core.instrument.Meter> meters = java.util.List.of();
    /** Set (mutex held) once the family's drop is durable: no write may reach it any more. */
    volatile boolean dropped;
    /**
     * Checkpoints that pinned this family and have not finished putting its tables into
     * their directory (mutex held): its drop deletes its directory only once this is 0.
     */
    int checkpoints;

    /**
     * Builds the tree over {@code versions} (open, over {@code tables}) with {@code config}, the
     * store's configuration with the family's options in place ({@link
     * dev.strata.lsm.FamilyOptions#applyTo}).
     */
    Tree(int id, String name, Path dir, StoreConfig config, TableFiles tables, VersionSet versions, MergePolicy mergePolicy,
         Shared shared) {
        this.id = id;
        this.name = name;
        this.dir = dir;
        this.config = config;
        this.tables = tables;
        this.versions = versions;
        this.shared = shared;
        EngineMutex mutex = shared.mutex();
        BackgroundThreads threads = shared.threads();
        this.obsolete = new ObsoleteFiles(shared.io(), dir, tables, versions, mutex, counters.punchedBytes,
                config.obsoleteDeleteBatchBytes());
        obsolete.walRetention(shared.storeDir(), shared.walKeepFrom());
        this.output = new TableOutput(shared.io(), dir, tables, versions, obsolete,
                (level, bottommost) -> TableOptions.of(config, level, bottommost),
                config.valueExpiry(), shared.operator(), config.clock());
        this.memtables = new Memtables(shared.log(), config.offHeap()
                || (config.sharedResources() != null && config.sharedResources().offHeap()), shared.memtablesChanged());
        this.policy = new PolicyBridge(mergePolicy, config.mergePolicy(), versions.current().policyState(), counters);
        MergeJob mergeJob = new MergeJob(shared.io(), tables, versions, output, obsolete, policy, mutex,
                TableOptions.of(config), threads.blockPool(), counters, config.subcompactions());
        this.scheduler = new MergeScheduler(dir, mutex, versions, policy, mergeJob, shared.snapshots(), threads,
                counters, shared.metrics(), shared.listener(), this::flushRunning, config.clock(),
                new dev.strata.lsm.policy.StoreSettings(config.memtableBytes()));
        this.flushJob = new FlushJob(mutex, versions, output, obsolete, policy, scheduler, mergeJob, shared.snapshots(),
                counters, shared.listener(), threads);
        this.flushLane = new FlushLane(dir, config.walMode(), mutex, memtables, versions, flushJob, scheduler, obsolete,
                shared.snapshots(), threads, counters, shared.metrics(), shared.io(), shared.storeDir(), id);
        this.writeControl = new WriteControl(dir, config, mutex, memtables, flushLane, scheduler, counters);
        this.reads = new ReadPath(memtables, versions, mutex, shared.operator(), config.prefixExtractor(),
                counters.prefixBloomSkips, config.clock());
        AtomicInteger queuedSweeps = shared.queuedSweeps();
        versions.onVersionReleased(() -> {
            if (!threads.isShutdown()) {
                queuedSweeps.incrementAndGet();
                try {
                    threads.merge(() -> {
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

    /**
     * Opens the tree of a non-default family in {@code dir} (created if missing), its WAL
     * segments being the store's. A failure closes what was opened.
     */
    static Tree open(int id, String name, Path dir, StoreConfig config, MergePolicy mergePolicy, Shared shared)
            throws IOException {
        shared.io().createDirectories(dir);
        TableFiles tables = new TableFiles(shared.io(), dir, shared.cache().namespace(id));
        VersionSet versions = null;
        try {
            versions = VersionSet.open(shared.io(), dir, shared.storeDir(), tables, config.manifestRewriteBytes());
            return new Tree(id, name, dir, config, tables, versions, mergePolicy, shared);
        } catch (IOException | RuntimeException | Error e) {
            if (versions != null) {
                versions.close();
            }
            tables.closeAll();
            throw e;
        }
    }

    /**
     * The merge policy of {@code config}: its instance, or a new one of the policy it names,
     * from the parameters resolved when the configuration was built.
     */
    static MergePolicy policyOf(StoreConfig config) {
        return config.createMergePolicy();
    }

    /** For the scheduler, which is made before the flush lane. Mutex held. */
    private boolean flushRunning() {
        return flushLane.running();
    }

    /** A flush or merge of this tree runs. Mutex held. */
    boolean busy() {
        return flushLane.running() || scheduler.running();
    }

    /**
     * The oldest WAL segment this tree still needs. With {@code idleNeedsNothing} (a store of
     * several families): none ({@link Long#MAX_VALUE}) when it holds no unflushed write, else
     * the segment of the first write of its oldest memtable holding one (or its log number, if
     * later: that memtable's flush is installed) — a memtable created at an old segment that
     * stayed empty while other families rolled the log does not pin the segments before its
     * first write. Otherwise its version set's log number, as for a store of one family always.
     */
    long walKeepFrom(boolean idleNeedsNothing) {
        if (!idleNeedsNothing) {
            return versions.logNumber();
        }
        MemtableSet m = memtables.set();
        java.util.List<dev.strata.lsm.memtable.Memtable> imm = m.immutable();
        long first = Long.MAX_VALUE;
        for (int i = imm.size() - 1; i >= 0 && first == Long.MAX_VALUE; i--) { // oldest first
            if (!imm.get(i).isEmpty()) {
                first = imm.get(i).firstWriteSegment();
            }
        }
        if (first == Long.MAX_VALUE && !m.active().isEmpty()) {
            first = m.active().firstWriteSegment();
        }
        // A flush that installed its table but has not dropped its memtable yet moved the log
        // number past that memtable's segments: they are needed no more.
        return first == Long.MAX_VALUE ? first : Math.max(first, versions.logNumber());
    }

    /** The tree's counters and gauges; the IO counters are the store's (one WAL, one device). */
    StoreStats stats() {
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
            return StoreStats.builder(shared.io().counters().snapshot())
                    .tableFileBytes(fileBytes)
                    .liveComponentBytes(bytes)
                    .liveLogicalBytes(LiveDataEstimate.of(v))
                    .componentsPerLevel(v.componentCounts())
                    .flushCount(counters.flushes.get())
                    .mergeCount(counters.merges.get())
                    .stallNanos(counters.stallNanos.sum())
                    .memtableBytes(memtables.approximateBytes())
                    .lastSequence(memtables.visibleSequence())
                    .policyErrors(counters.policyErrors.get())
                    .liveTableFileNumbers(v.components().stream().mapToLong(c -> c.meta().fileNumber()).distinct()
                            .sorted().toArray())
                    .blockCompaction(new BlockCompactionStats(counters.childDecisions[3].sum(),
                            counters.childDecisions[0].sum(), counters.childDecisions[1].sum(),
                            counters.childDecisions[2].sum(), counters.inPlaceBytes.sum(), counters.punchedBytes.sum()))
                    .tableAllocatedBytes(tables.allocatedBytes())
                    .stallChains(chains())
                    .writeDelays(counters.writeDelays())
                    .bytesWrittenByLevel(counters.writtenByLevel())
                    .liveTombstones(tombstones)
                    .bytesByLevel(liveByLevel, physicalByLevel)
                    .compression(logicalByLevel, tables.cache().decompressions(), tables.cache().decompressionNanos())
                    .prefixBloomSkips(counters.prefixBloomSkips.sum())
                    .mergesCollapsed(counters.mergesCollapsed.sum())
                    .blockCache(tables.cache().hits(), tables.cache().misses())
                    .bytesWrittenByKind(counters.writtenByKind())
                    .build();
        } finally {
            v.release();
        }
    }

    private StallChainStats chains() {
        shared.mutex().lock();
        try {
            return counters.chains.stats();
        } finally {
            shared.mutex().unlock();
        }
    }

    /** Closes the tree's manifest and tables (its jobs have ended). */
    void closeFiles() {
        try {
            versions.close();
        } catch (RuntimeException e) {
            System.getLogger(Tree.class.getName()).log(System.Logger.Level.WARNING, "closing manifest of " + dir
                    + " failed", e);
        }
        tables.closeAll();
    }
}
