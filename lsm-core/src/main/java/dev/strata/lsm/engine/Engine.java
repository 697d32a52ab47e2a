package dev.strata.lsm.engine;

import java.util.Set;
import dev.strata.lsm.policy.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import dev.strata.lsm.version.ComponentViews;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.BlockCompactionStats;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.StallChainStats;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WriteOptions;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.RepairReport;
import dev.strata.lsm.repair.StoreRepair;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.LiveDataEstimate;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.WalSyncMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
    private final BackgroundThreads threads;
    private final DirectoryLock dirLock;
    /** The default family's tree: the store directory's tables and manifest. */
    private final Tree tree;
    /** Every live family's tree, the default one's first. */
    private final Families families = new Families();
    /** What every tree shares. */
    private final Tree.Shared shared;
    /** The one WAL of all families and the sequence numbers. */
    private final WalLog log;
    /** The column family catalog as last written; guarded by the mutex. */
    private dev.strata.lsm.version.FamilyCatalog catalog;
    /** The default family's parts (what a store was before families existed). */
    private final TableFiles tables;
    private final VersionSet versions;
    private final ObsoleteFiles obsolete;
    private final TableOutput output;
    /** For a read-only engine ({@link #openReadOnly}): the store it reads, its staging directory and the caller's config. */
    private volatile Path readOnlySource;
    /** See {@link #opsHook}. */
    private volatile java.util.function.Consumer<String> opsHook;
    private volatile Path staging;
    private volatile StoreConfig readOnlyConfig;
    private final StoreMetrics metrics;
    /** Whether this engine opens a read-only store's staging: every family runs with no merge policy. */
    private final boolean reader;
    private final EngineMutex mutex;
    private final EngineCounters counters;
    private final Snapshots snapshots = new Snapshots();
    private final Memtables memtables;
    private final PolicyBridge policy;
    private final MergeScheduler scheduler;
    private final FlushJob flushJob;
    private final FlushLane flushLane;
    private final WriteQueue writeQueue;
    private final WriteControl writeControl;
    private final ReadPath reads;
    /** With atomic flush ({@link StoreConfig#atomicFlush()}): the families' flush groups; else null. */
    private final FlushGroups groups;
    /** The memtable budget shared with other stores, or null; this store is in it while open ({@link #open}). */
    private final MemtableBudget budget;
    /** This store's share of {@link #budget} while it is open and writable, else null. */
    private volatile MemtableBudget.Share budgetShare;
    private final MemtableBudget.Member budgetMember = new MemtableBudget.Member() {
        @Override
        public long memtableBytes() {
            long bytes = 0;
            for (Tree t : families.all()) {
                bytes += t.memtables.approximateBytes();
            }
            return bytes;
        }

        @Override
        public long activeBytes() {
            long bytes = 0;
            for (Tree t : families.all()) {
                bytes += t.memtables.set().active().approximateBytes();
            }
            return bytes;
        }

        @Override
        public void switchForBudget() {
            switchMemtablesForBudget();
        }

        @Override
        public String toString() {
            return "store " + dir;
        }
    };

    /**
     * Opens the version set and starts the store's services; if anything fails, closes
     * what was opened so far (the caller still owns {@code dirLock}).
     */
    private Engine(Path dir, StoreConfig given, CountingStorageIO io, DirectoryLock dirLock, boolean reader)
            throws IOException {
        this.reader = reader;
        this.dir = dir;
        this.io = io;
        this.dirLock = dirLock;
        this.mutex = new EngineMutex(dir);
        StoreListener listener = given.listener() != null ? given.listener() : new StoreListener() { };
        this.cache = given.sharedResources() != null ? SharedResourcesAccess.blockCache(given.sharedResources())
                        .forStore()
                : BlockCache.create(given.blockCacheBytes(), given.offHeap(), given.blockCacheAdmission());
        TableFiles rootTables = new TableFiles(io, dir, cache);
        StorePolicy storePolicy = new StorePolicy(given, dir);
        dev.strata.lsm.policy.MergePolicy mergePolicy;
        VersionSet openedVersions = null;
        BackgroundThreads startedThreads = null;
        StoreMetrics boundMetrics = null;
        dev.strata.lsm.version.FamilyCatalog readCatalog;
        try {
            readCatalog = dev.strata.lsm.version.FamilyCatalog.read(io, dir);
            // Chooses the policy from what the manifest records before anything is written.
            openedVersions = VersionSet.open(io, dir, dir, rootTables, given.manifestRewriteBytes(), storePolicy);
            mergePolicy = Tree.policyOf(storePolicy.effective());
            startedThreads = new BackgroundThreads(dir, given.backgroundThreads(), given.subcompactions(),
                    given.sharedResources() != null ? SharedResourcesAccess.backgroundPool(given.sharedResources()) : null);
            boundMetrics = new StoreMetrics(String.valueOf(dir.getFileName()), io.counters(), this::stats, cache);
            boundMetrics.bindTo(given.meterRegistry() != null ? given.meterRegistry()
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
            rootTables.closeAll();
            throw e;
        }
        // The policy chosen, in place of the default a configuration naming none holds.
        this.config = storePolicy.effective();
        this.catalog = readCatalog;
        this.threads = startedThreads;
        this.metrics = boundMetrics;
        dev.strata.lsm.mergeop.MergeOperator operator = config.mergeOperator() == null ? null
                : dev.strata.lsm.mergeop.MergeOperators.find(config.mergeOperator());
        this.log = new WalLog(io, dir, config.walMode(), openedVersions);
        this.shared = new Tree.Shared(dir, io, cache, mutex, threads, metrics, snapshots, listener, operator, log,
                queuedSweeps, this::walKeepFrom, this::memtablesChanged);
        this.tree = new Tree(0, dev.strata.lsm.ColumnFamily.DEFAULT_NAME, dir, config, rootTables, openedVersions,
                mergePolicy, shared);
        families.add(tree);
        this.tables = tree.tables;
        this.versions = tree.versions;
        this.obsolete = tree.obsolete;
        this.output = tree.output;
        this.memtables = tree.memtables;
        this.policy = tree.policy;
        this.scheduler = tree.scheduler;
        this.flushJob = tree.flushJob;
        this.flushLane = tree.flushLane;
        this.writeControl = tree.writeControl;
        this.reads = tree.reads;
        this.budget = config.sharedResources() == null ? null : SharedResourcesAccess.memtableBudget(config.sharedResources());
        this.counters = tree.counters;
        this.writeQueue = new WriteQueue(dir, config, mutex, log, families, operator);
        this.groups = config.atomicFlush() ? new FlushGroups(dir, io, config.walMode(), mutex, families, log, snapshots,
                threads, metrics) : null;
        if (groups != null) {
            tree.flushLane.joinGroups(groups);
        }
        try {
            for (dev.strata.lsm.version.FamilyCatalog.Entry e : readCatalog.families()) {
                StoreConfig familyConfig = familyConfig(e.name(), e.options());
                Tree opened = Tree.open(e.id(), e.name(), dev.strata.lsm.version.FamilyCatalog.familyDirectory(dir, e.id()),
                        familyConfig, Tree.policyOf(familyConfig), shared);
                if (groups != null) {
                    opened.flushLane.joinGroups(groups);
                }
                families.add(opened);
            }
            for (Tree t : families.all()) {
                t.meters = metrics.bindFamily(t.name, t::stats);
            }
        } catch (IOException | RuntimeException | Error e) {
            threads.close();
            for (Tree t : families.all()) {
                t.closeFiles();
            }
            metrics.close();
            throw e;
        }
    }

    /**
     * The configuration family {@code name} runs with: the store's with the family's options
     * in place — those the store's configuration gives it ({@code <family>}), else those it
     * was created with.
     */
    private StoreConfig familyConfig(String name, dev.strata.lsm.FamilyOptions recorded) {
        // A family configured here was validated with the store's configuration; one known only
        // from the catalog is checked now.
        StoreConfig configured = config.familyConfig(name);
        StoreConfig applied = configured != null ? configured : recorded.applyTo(config);
        // A reader's tables are links to the writer's: nothing may merge (or append to) them.
        return reader ? applied.toBuilder().mergePolicy("no-merge", java.util.Map.of()).build() : applied;
    }

    /**
     * The oldest WAL segment any family still needs: the smallest log number, where a family
     * holding no unflushed write needs none (with several families; a store of one family
     * keeps its log number's segment, as it always did) — never past the segment being written.
     */
    private long walKeepFrom() {
        long keep = log.segment();
        boolean several = families.several();
        for (Tree t : families.all()) {
            keep = Math.min(keep, t.walKeepFrom(several));
        }
        for (long floor : checkpointWalFloors) {
            keep = Math.min(keep, floor);
        }
        return keep;
    }

    /**
     * The oldest WAL segment of each checkpoint linking segments now ({@link
     * #checkpointFamilies}): retention keeps them until the links are made. Without it a
     * deletion that computed its bound after the checkpoint listed the segments could remove
     * one before it was linked.
     */
    private final List<Long> checkpointWalFloors = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Opens (creating if needed) the store in {@code dir} and recovers it. A failed open
     * releases everything it took: files, threads and the directory.
     *
     * @throws StoreException if the store is open already, in this process or another, or
     *     cannot be opened; nothing of an open store is touched
     */
    public static Engine open(Path dir, StoreConfig config) {
        return open(dir, config, false);
    }

    private static Engine open(Path dir, StoreConfig config, boolean reader) {
        // Before anything is created: a policy instance another open store runs changes nothing.
        PolicyClaims.claim(config.mergePolicyInstance(), dir);
        CountingStorageIO io;
        DirectoryLock dirLock;
        try {
            io = new CountingStorageIO(config.createStorageIO());
            io.createDirectories(dir);
            dirLock = DirectoryLock.acquire(dir);
        } catch (IOException e) {
            PolicyClaims.release(config.mergePolicyInstance(), dir);
            throw new StoreException("cannot open store " + dir + ": " + e, e);
        } catch (RuntimeException | Error e) {
            PolicyClaims.release(config.mergePolicyInstance(), dir);
            throw e;
        }
        Engine engine = null;
        try {
            engine = new Engine(dir, config, io, dirLock, reader);
            engine.recover();
            if (engine.budget != null && !reader) {
                // A read-only open writes nothing: it never joins the memtable budget.
                engine.budgetShare = engine.budget.register(engine.budgetMember);
            }
            // Families the configuration names and the store does not have yet (a reader creates none).
            for (var f : config.familyOptions().entrySet()) {
                if (!reader && engine.families.named(f.getKey()) == null) {
                    engine.createFamily(f.getKey(), f.getValue());
                }
            }
            return engine;
        } catch (IOException e) {
            abandonOpen(engine, dirLock, dir, config);
            throw new StoreException("cannot open store " + dir + ": " + e, e);
        } catch (RuntimeException | Error e) {
            abandonOpen(engine, dirLock, dir, config);
            throw e;
        }
    }

    /**
     * Opens the store in {@code source}, which another process may have open for writing, for
     * reading only: stages a consistent state of it ({@link ReaderStaging}: WAL copies, the
     * manifest, hard links of its tables) in a directory beside it (or in the system's
     * temporary directory where that cannot be written) and opens that with no merge policy.
     * Nothing in {@code source} is written, locked or deleted. Writes, flushes and manual
     * compactions are refused; {@link #refreshed()} stages the writer's newer state.
     */
    public static Engine openReadOnly(Path source, StoreConfig config) {
        if (!Files.isDirectory(source)) {
            throw new StoreException("cannot open " + source + " read-only: no such directory");
        }
        Path staging = null;
        try {
            staging = stagingDirectory(source);
            ReaderStaging.stage(config.createStorageIO(), source, staging);
            StoreConfig readerConfig = config.toBuilder().mergePolicy("no-merge", java.util.Map.of())
                    .walMode(WalSyncMode.ASYNC).policyTickMillis(0).build();
            Engine engine = open(staging, readerConfig, true);
            engine.staging = staging;
            engine.readOnlyConfig = config;
            engine.readOnlySource = source;
            return engine;
        } catch (IOException | RuntimeException e) {
            if (staging != null) {
                try {
                    ReaderStaging.deleteTree(staging);
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new StoreException("cannot open " + source + " read-only: " + e, e);
        }
    }

    private static Path stagingDirectory(Path source) throws IOException {
        Path absolute = source.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent != null) {
            try {
                return dev.strata.lsm.io.ScratchDirectories.create(parent, absolute.getFileName().toString(), "reader");
            } catch (IOException e) {
                // the parent is not writable: the system's temporary directory (tables are then copied if on another file system)
            }
        }
        return Files.createTempDirectory("strata-reader-");
    }

    /**
     * For a read-only engine: a new read-only engine over the writer's state now; this one
     * stays open (the caller closes it).
     */
    public Engine refreshed() {
        mutex.checkOpen();
        if (readOnlySource == null) {
            throw new UnsupportedOperationException("refresh() is for stores opened with openReadOnly; " + dir
                    + " is open for writing and always current");
        }
        return openReadOnly(readOnlySource, readOnlyConfig);
    }

    /** Whether this engine was opened with {@link #openReadOnly}. */
    public boolean readOnly() {
        return readOnlySource != null;
    }

    /** Throws if this engine is read-only; {@code what} names the refused call. */
    private void checkWritable(String what) {
        mutex.checkOpen();
        Path source = readOnlySource;
        if (source != null) {
            throw new UnsupportedOperationException(what + " refused: store " + source + " is open read-only");
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
            // An atomic flush interrupted before its commit leaves its intent: its tables are set
            // aside in every family it names, so no family shows its part of the group.
            java.util.Map<Integer, Long> uncommitted = uncommittedGroup(dir, config);
            RepairReport root = StoreRepair.repair(dir, config, uncommitted.getOrDefault(0, Long.MAX_VALUE));
            // Each column family's directory is a tree of its own: rebuilt the same way. Its
            // log number becomes 0, so the next open replays the store's WAL for it too.
            dev.strata.lsm.version.FamilyCatalog catalog = dev.strata.lsm.version.FamilyCatalog.read(
                    config.createStorageIO(), dir);
            List<RepairReport> families = new ArrayList<>();
            for (dev.strata.lsm.version.FamilyCatalog.Entry e : catalog.families()) {
                Path familyDir = dev.strata.lsm.version.FamilyCatalog.familyDirectory(dir, e.id());
                Files.createDirectories(familyDir);
                families.add(StoreRepair.repair(familyDir, config, uncommitted.getOrDefault(e.id(), Long.MAX_VALUE)));
            }
            // Every readable table of a committed atomic flush is in the rebuilt manifests, and an
            // uncommitted one's are set aside: the record has nothing left to finish.
            dev.strata.lsm.version.FlushGroupRecord.delete(config.createStorageIO(), dir);
            return root.withFamilies(families);
        } catch (IOException e) {
            throw new StoreException("cannot repair " + dir + ": " + e, e);
        }
    }

    /**
     * The families an atomic flush interrupted before its commit wrote tables for, each with
     * its last sequence number when the group began (the store's {@code FLUSHGROUP} intent);
     * empty without one. A damaged record is no evidence either way: empty, and the repair
     * keeps every readable table as before.
     */
    private static java.util.Map<Integer, Long> uncommittedGroup(Path dir, StoreConfig config) {
        java.util.Map<Integer, Long> out = new java.util.HashMap<>();
        try {
            dev.strata.lsm.version.FlushGroupRecord record = dev.strata.lsm.version.FlushGroupRecord.read(
                    config.createStorageIO(), dir);
            if (record != null && !record.committed()) {
                for (dev.strata.lsm.version.FlushGroupRecord.Intent i : record.intents()) {
                    out.put(i.familyId(), i.above());
                }
            }
        } catch (IOException | RuntimeException e) {
            System.getLogger(Engine.class.getName()).log(System.Logger.Level.WARNING, "repair of " + dir
                    + ": the flush group record cannot be read (" + e + "); every readable table is kept");
        }
        return out;
    }

    private static void abandonOpen(Engine engine, DirectoryLock dirLock, Path dir, StoreConfig config) {
        if (engine != null) {
            engine.shutdownQuietly();
        } else {
            dirLock.close();
        }
        PolicyClaims.release(config.mergePolicyInstance(), dir);
    }

    /** Recovers the data, asks the policy for merges, and starts the policy tick. */
    private void recover() throws IOException {
        new Recovery(io, dir, log, families, catalog.nextId()).run();
        deleteOrphanFamilies();
        mutex.lock();
        try {
            for (Tree t : families.all()) {
                t.scheduler.scheduleMerges();
            }
        } finally {
            mutex.unlock();
        }
        long tick = config.policyTickMillis();
        if (tick > 0) {
            // On the timer thread (the store's flush thread, or a shared pool's control thread):
            // the merge threads may all be inside long merges, and the tick's work (a view and a
            // decision request under the mutex) is short.
            threads.tick(this::policyTick, tick);
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
                for (Tree t : families.all()) {
                    t.scheduler.scheduleMerges();
                }
                mutex.signalBackground();
            }
        } catch (RuntimeException e) {
            // A periodic task that throws is never run again: log and keep ticking.
            LOG.log(System.Logger.Level.ERROR, "policy tick in " + dir + " failed", e);
        } finally {
            mutex.unlock();
        }
    }

    // ------------------------------------------------------------------ column families

    /** A live column family: its id and name. */
    public record FamilyInfo(int id, String name) {
    }

    /** The live column families, the default one first, then in creation order. */
    public List<FamilyInfo> families() {
        mutex.checkOpen();
        return families.all().stream().map(t -> new FamilyInfo(t.id, t.name)).toList();
    }

    /**
     * Creates column family {@code name} with {@code options} and returns its id: makes its
     * directory and empty manifest, then records it in the catalog (durably); a crash between
     * leaves a directory the next open deletes.
     *
     * @throws IllegalArgumentException if the name is invalid or taken, or the options are bad
     *     (nothing is changed)
     */
    public int createFamily(String name, dev.strata.lsm.FamilyOptions options) {
        checkWritable("createColumnFamily");
        dev.strata.lsm.ColumnFamily.checkName(name);
        if (options == null) {
            throw new IllegalArgumentException("family options must not be null (FamilyOptions.defaults())");
        }
        StoreConfig familyConfig;
        dev.strata.lsm.policy.MergePolicy familyPolicy;
        try {
            familyConfig = options.applyTo(config);
            familyPolicy = Tree.policyOf(familyConfig);
        } catch (dev.strata.lsm.ConfigException | IllegalArgumentException e) {
            throw new IllegalArgumentException("bad options for column family \"" + name + "\": " + e.getMessage(), e);
        }
        mutex.lock();
        try {
            mutex.checkOpen();
            if (families.named(name) != null) {
                throw new IllegalArgumentException("column family \"" + name + "\" exists already in store " + dir);
            }
            int id = catalog.nextId();
            Path familyDir = dev.strata.lsm.version.FamilyCatalog.familyDirectory(dir, id);
            Tree created = null;
            try {
                ReaderStaging.deleteTree(familyDir); // a crashed earlier attempt's
                created = Tree.open(id, name, familyDir, familyConfig, familyPolicy, shared);
                // Its data starts in the segment being written, above every sequence number so far.
                created.flushJob.installNothing(log.segment(), log.visibleSequence());
                dev.strata.lsm.version.FamilyCatalog next = catalog.with(name, options);
                next.write(io, dir);
                catalog = next;
            } catch (IOException | RuntimeException e) {
                if (created != null) {
                    created.closeFiles();
                }
                try {
                    ReaderStaging.deleteTree(familyDir);
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
                mutex.checkOpen();
                throw e instanceof StoreException se ? se
                        : new StoreException("creating column family \"" + name + "\" in " + dir + " failed: " + e, e);
            }
            created.memtables.start(log.segment());
            if (groups != null) {
                created.flushLane.joinGroups(groups);
            }
            families.add(created);
            created.meters = metrics.bindFamily(name, created::stats);
            return id;
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Drops column family {@code family}: records the drop in the catalog (durably), so its
     * writes are refused and the WAL no longer kept for it, waits for its running flush or
     * merge, and only then deletes its directory (a crash before leaves a directory the next
     * open deletes; before the catalog write, the family is still there, whole).
     *
     * @throws IllegalArgumentException if {@code family} is the default family or not live
     */
    public void dropFamily(int family) {
        checkWritable("dropColumnFamily");
        if (family == 0) {
            throw new IllegalArgumentException("the default column family cannot be dropped");
        }
        Tree t;
        mutex.lock();
        try {
            mutex.checkOpen();
            t = tree(family);
            // No write group is between WAL and memtables while the family goes.
            WriteQueue.Writer w = writeQueue.awaitBarrierTurn();
            try {
                mutex.checkOpen();
                dev.strata.lsm.version.FamilyCatalog next = catalog.without(family);
                try {
                    next.write(io, dir);
                } catch (IOException e) {
                    throw new StoreException("dropping column family \"" + t.name + "\" of " + dir
                            + " failed writing the catalog; the family is still there: " + e, e);
                }
                catalog = next;
                t.dropped = true;
                families.remove(family);
                // Nothing of the family starts from here: no flush, decision, merge or retry.
                t.flushLane.stop();
                t.scheduler.stop();
            } finally {
                writeQueue.leave(w);
            }
            // A running flush or merge ends as it would (one queued but not started does
            // nothing); it may still write into the directory until then.
            boolean toldBusy = false;
            while (t.busy()) {
                if (!toldBusy) {
                    tellOpsHook("drop waits for background work");
                    toldBusy = true;
                }
                mutex.awaitBackground(100);
            }
            // A checkpoint that pinned the family before the drop holds it (it was live at the
            // checkpoint's sequence number): its tables stay until they are linked or copied.
            boolean told = false;
            while (t.checkpoints > 0) {
                if (!told) {
                    tellOpsHook("drop waits for checkpoint");
                    told = true;
                }
                mutex.awaitBackground(100);
            }
            t.memtables.discard();
        } finally {
            mutex.unlock();
        }
        // A running obsolete-file sweep of the family ends first; later ones do nothing.
        t.obsolete.stop(() -> tellOpsHook("drop waits for obsolete-file sweep"));
        metrics.unbindFamily(t.meters);
        t.closeFiles();
        try {
            ReaderStaging.deleteTree(t.dir);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete the directory " + t.dir + " of dropped column family "
                    + t.name + "; the next open deletes it", e);
        }
    }

    /** After recovery: deletes the directories of families the catalog does not list (dropped, or never recorded). */
    private void deleteOrphanFamilies() throws IOException {
        Path parent = dir.resolve(dev.strata.lsm.version.FamilyCatalog.DIRECTORY);
        if (!Files.isDirectory(parent)) {
            return;
        }
        try (var entries = Files.list(parent)) {
            for (Path p : entries.toList()) {
                String n = p.getFileName().toString();
                boolean live = n.matches("[1-9][0-9]{0,9}") && families.get(Integer.parseInt(n)) != null;
                if (!live) {
                    LOG.log(System.Logger.Level.DEBUG, "deleting orphan column family directory {0}", p);
                    ReaderStaging.deleteTree(p);
                }
            }
        }
    }

    // ------------------------------------------------------------------ writes

    /** Applies {@code batch} atomically; returns once it is as durable as the WAL mode promises. */
    public void write(WriteBatch batch) {
        write(batch, WriteOptions.defaults());
    }

    /** Applies {@code batch} atomically with {@code options} (see {@link WriteOptions}). */
    public void write(WriteBatch batch, WriteOptions options) {
        checkWritable("write");
        long t0 = System.nanoTime();
        if (budget != null) {
            budget.admit();
        }
        try {
            writeQueue.write(batch, options);
        } finally {
            memtablesChanged();
        }
        if (budget != null) {
            budget.afterWrite();
        }
        if (options.isSync() && config.walMode() == WalSyncMode.NONE && !batch.isEmpty()) {
            // No WAL to force: the write is made durable by flushing its families' memtables.
            for (int family : batch.ops().stream().map(WriteBatch.Op::familyId).distinct().toList()) {
                Tree t = families.get(family);
                if (t != null) {
                    flush(t);
                }
            }
        }
        metrics.recordWrite(System.nanoTime() - t0);
    }

    /**
     * For tests: {@code hook} is told {@code "checkpoint listed wal"} on a checkpoint's thread
     * when a checkpoint of a store with column families has listed the WAL segments it links
     * (the mutex and the write queue held, none linked yet), {@code "checkpoint pinned"} once it
     * has pinned the families and linked those segments (the mutex and the write queue
     * released, no table linked yet), and {@code "drop waits for checkpoint"} on a
     * column family drop's thread when the drop waits for such a checkpoint, {@code "drop waits
     * for background work"} when it waits for the family's running flush or merge, and
     * {@code "drop waits for obsolete-file sweep"} when it waits for a sweep of the family's
     * directory to end; null: none.
     */
    void opsHook(java.util.function.Consumer<String> hook) {
        opsHook = hook;
    }

    private void tellOpsHook(String step) {
        java.util.function.Consumer<String> h = opsHook;
        if (h != null) {
            h.accept(step);
        }
    }

    /**
     * For tests: {@code hook} is told, on the thread doing it, {@code "flush started"} before
     * each flush of column family {@code family} writes, {@code "merge started"} before each of
     * its merges writes, and {@code "sweep deletes N"} when an obsolete-file sweep of its
     * directory is about to delete N tables (null: none).
     */
    void backgroundHook(int family, java.util.function.Consumer<String> hook) {
        Tree t = tree(family);
        t.flushLane.hook(hook);
        t.scheduler.hook(hook);
        t.obsolete.hook(hook);
    }

    /**
     * For tests: with atomic flush, {@code hook} is told each step of every flush group on the
     * flush thread ({@code "written"}, {@code "committed"}, {@code "installed NAME"}), and
     * {@code "checkpoint waits"} on a checkpoint's thread when it waits for a group being
     * installed; null: none.
     *
     * @throws IllegalStateException if the store does not flush atomically
     */
    void flushGroupHook(java.util.function.Consumer<String> hook) {
        if (groups == null) {
            throw new IllegalStateException("store " + dir + " does not flush atomically");
        }
        groups.hook(hook);
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

    /** For tests: the write admission of column family {@code family}'s last policy decision. */
    dev.strata.lsm.policy.WriteAdmission admission(int family) {
        return tree(family).scheduler.admission();
    }

    /**
     * For tests: {@code hook} is told {@code "memtables read"} by every read of column family
     * {@code family} between taking its memtable set and pinning a version, on the reader's
     * thread (null: none).
     */
    void readHook(int family, java.util.function.Consumer<String> hook) {
        tree(family).reads.hook(hook);
    }

    /**
     * For tests: the merge operands in a row on top of {@code key} in column family
     * {@code family}'s active memtable, counted up to {@code limit}
     * ({@link dev.strata.lsm.memtable.Memtable#successiveMerges}).
     */
    int successiveMergesInMemtable(int family, byte[] key, int limit) {
        return tree(family).memtables.set().active().successiveMerges(key, limit);
    }

    // ------------------------------------------------------------------ reads

    /** The value of {@code key} at {@code seq}, or null. */
    public byte[] get(byte[] key, long seq) {
        return get(0, key, seq);
    }

    /** The value of {@code key} in column family {@code family} at {@code seq}, or null. */
    public byte[] get(int family, byte[] key, long seq) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        mutex.checkOpen();
        Tree t = tree(family);
        metrics.recordGet();
        return t.reads.get(key, seq);
    }

    /** The newest value of {@code key}, or null (see {@link ReadPath#getLatest}). */
    public byte[] getLatest(byte[] key) {
        return getLatest(0, key);
    }

    /** The newest value of {@code key} in column family {@code family}, or null. */
    public byte[] getLatest(int family, byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        mutex.checkOpen();
        Tree t = tree(family);
        metrics.recordGet();
        return t.reads.getLatest(key);
    }

    /**
     * The newest entry of {@code key} if the memtables hold one, else null (see
     * {@link ReadPath#latestInMemtables}).
     */
    public dev.strata.lsm.sstable.InternalEntry latestInMemtables(byte[] key) {
        return latestInMemtables(0, key);
    }

    /** {@link #latestInMemtables(byte[])} in column family {@code family}. */
    public dev.strata.lsm.sstable.InternalEntry latestInMemtables(int family, byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        mutex.checkOpen();
        dev.strata.lsm.sstable.InternalEntry e = tree(family).reads.latestInMemtables(key);
        if (e != null) {
            metrics.recordGet();
        }
        return e;
    }

    /** The newest values of {@code keys}, null where absent, read in one pass (see {@link ReadPath#getLatestAll}). */
    public byte[][] getLatestAll(byte[][] keys) {
        return getLatestAll(0, keys);
    }

    /** {@link #getLatestAll(byte[][])} in column family {@code family}. */
    public byte[][] getLatestAll(int family, byte[][] keys) {
        for (byte[] key : keys) {
            if (key == null) {
                throw new IllegalArgumentException("key must not be null");
            }
        }
        mutex.checkOpen();
        Tree t = tree(family);
        metrics.recordGets(keys.length);
        return t.reads.getLatestAll(keys);
    }

    /** A cursor over live keys in [from, to) at {@code seq}. */
    public Cursor scan(byte[] from, byte[] to, long seq) {
        return scan(0, from, to, seq);
    }

    /** A cursor over live keys of column family {@code family} in [from, to) at {@code seq}. */
    public Cursor scan(int family, byte[] from, byte[] to, long seq) {
        mutex.checkOpen();
        return tree(family).reads.scan(from, to, seq);
    }

    /**
     * A cursor over the live keys of column family {@code family} starting with {@code
     * prefix} at {@code seq}, or the newest data when {@code seq} is negative; tables whose
     * prefix bloom rules the prefix out are not read.
     */
    public Cursor scanPrefix(int family, byte[] prefix, long seq) {
        if (prefix == null) {
            throw new IllegalArgumentException("prefix must not be null (use an empty prefix for every key)");
        }
        mutex.checkOpen();
        return tree(family).reads.scanPrefix(prefix, seq);
    }

    /** A cursor over the newest data: like {@link #scan(byte[], byte[], long)} at the visible sequence number. */
    public Cursor scanLatest(byte[] from, byte[] to) {
        return scanLatest(0, from, to);
    }

    /** A cursor over the newest data of column family {@code family}. */
    public Cursor scanLatest(int family, byte[] from, byte[] to) {
        mutex.checkOpen();
        return tree(family).reads.scanLatest(from, to);
    }

    /**
     * The live tree of column family {@code family}.
     *
     * @throws IllegalArgumentException if the store has no such family (dropped, or never created)
     */
    private Tree tree(int family) {
        Tree t = families.get(family);
        if (t == null || t.dropped) {
            throw new IllegalArgumentException("column family id " + family + " is not a live family of store " + dir
                    + " (dropped, or never created)");
        }
        return t;
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
        flush(tree);
    }

    /** {@link #flush()} for column family {@code family}. */
    public void flushFamily(int family) {
        mutex.checkOpen();
        flush(tree(family));
    }

    private void flush(Tree t) {
        checkWritable("flush");
        Memtables memtables = t.memtables;
        FlushLane flushLane = t.flushLane;
        mutex.lock();
        try {
            mutex.checkOpen();
            // Take the writer queue's turn so no write group is between WAL and memtable.
            WriteQueue.Writer w = writeQueue.awaitBarrierTurn();
            try {
                mutex.checkOpen();
                if (!memtables.set().active().isEmpty()) {
                    t.writeControl.switchMemtable();
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
                        throw new StoreException("flush of " + t.dir + " failed: " + flushError, flushError);
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
            while (families.all().stream().anyMatch(t -> t.flushLane.running()
                    || !t.memtables.set().immutable().isEmpty() || t.scheduler.active()) || queuedSweeps.get() > 0) {
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
        return estimateKeyCount(0);
    }

    /** {@link #estimateKeyCount()} of column family {@code family}. */
    public long estimateKeyCount(int family) {
        mutex.checkOpen();
        Tree t = tree(family);
        long keys = t.memtables.estimatedKeyCount();
        Version v = t.versions.acquire();
        try {
            for (Component c : v.components()) {
                keys += c.meta().entryCount() - 2 * c.meta().tombstoneCount();
            }
        } finally {
            v.release();
        }
        return Math.max(0, keys);
    }

    /**
     * Writes an openable copy of the store into {@code target}, which must not exist, while
     * writes and merges go on: flushes the memtable, then pins the current version and puts
     * each of its table files into a temporary directory beside {@code target} — a hard link,
     * or a copy (forced) where the file system refuses links — with a manifest naming exactly
     * them, and renames the directory to {@code target}. The checkpoint holds every write
     * acknowledged before the call (at the sequence number of that flush) and needs no WAL. A
     * linked file is never changed in place while it is shared: block compaction rewrites such
     * a child instead of appending to it, and no page of it is punched (in either store).
     *
     * @return bytes copied (0 when every table could be linked)
     */
    public long checkpoint(Path target) {
        if (target == null) {
            throw new IllegalArgumentException("checkpoint target must not be null");
        }
        checkWritable("checkpoint");
        Path absolute = target.toAbsolutePath().normalize();
        if (Files.exists(absolute, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("checkpoint target " + absolute + " exists; give a path that does not");
        }
        Path parent = absolute.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("checkpoint target " + absolute + ": its parent directory does not exist");
        }
        boolean withFamilies;
        mutex.lock();
        try {
            mutex.checkOpen();
            withFamilies = catalog.nextId() > 1;
        } finally {
            mutex.unlock();
        }
        if (withFamilies) {
            return checkpointFamilies(absolute, parent);
        }
        flush();
        Path temp = parent.resolve(absolute.getFileName() + ".checkpoint-tmp");
        long[] copied = {0};
        try {
            ReaderStaging.deleteTree(temp); // a crashed earlier attempt
            Files.createDirectory(temp);
            versions.writeCheckpoint(temp, (table, to) -> copied[0] += linkOrCopy(table, to));
            io.syncDirectory(temp);
            Files.move(temp, absolute, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            io.syncDirectory(parent);
            return copied[0];
        } catch (IOException | RuntimeException e) {
            try {
                ReaderStaging.deleteTree(temp);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            mutex.checkOpen();
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new StoreException("checkpoint of " + dir + " into " + absolute + " failed: " + e, e);
        }
    }

    /**
     * {@link #checkpoint} of a store that has (or had) column families besides the default one:
     * every live family at one sequence number. Nothing is flushed (the memtables' writes
     * reach the checkpoint as its WAL tail) except in WAL mode none. At the head of the write queue (no write group is between WAL and
     * memtables, later writers wait) and with the mutex held: each family's current version is
     * pinned with its log number and last sequence number, the catalog taken, the WAL's
     * appended records handed to the OS, and every WAL segment from the lowest log number of
     * any family on hard-linked into the checkpoint (the segment being written under a scratch
     * name, with its length noted). In WAL mode none there is no WAL: every family's memtables
     * are flushed there instead, writers waiting. With the writers released: the segment being
     * written is copied up to the noted length (so the checkpoint replays no later write), each
     * family's tables are linked or copied into its directory ({@code families/<id>/} for the
     * others) with a manifest naming exactly them, and the catalog is written. Opening the
     * checkpoint replays the WAL tail per family (above each family's last sequence number),
     * so every family holds exactly the writes at or below the one sequence number. The family
     * set is the one pinned with the versions, under the same mutex and write-queue turn: a
     * family dropped after that is still in the checkpoint (it was live at its sequence
     * number), and its drop waits to delete its directory until the checkpoint is done.
     */
    private long checkpointFamilies(Path absolute, Path parent) {
        Path temp = parent.resolve(absolute.getFileName() + ".checkpoint-tmp");
        long[] copied = {0};
        List<Tree> trees = new ArrayList<>();
        List<VersionSet.CheckpointPin> pins = new ArrayList<>();
        List<Tree> held = new ArrayList<>();
        dev.strata.lsm.version.FamilyCatalog taken;
        Path activeLink = null;
        Path activeTarget = null;
        long activeEnd = 0;
        Long walFloor = null;
        try {
            ReaderStaging.deleteTree(temp); // a crashed earlier attempt
            Files.createDirectory(temp);
            mutex.lock();
            try {
                mutex.checkOpen();
                WriteQueue.Writer turn = writeQueue.awaitBarrierTurn();
                try {
                    mutex.checkOpen();
                    if (config.walMode() == WalSyncMode.NONE) {
                        Throwable unflushed = flushForClose();
                        if (unflushed != null) {
                            throw new StoreException("checkpoint of " + dir + ": flushing the memtables failed: "
                                    + unflushed, unflushed);
                        }
                    } else if (groups != null) {
                        awaitNoGroupInstalling();
                    }
                    taken = catalog;
                    for (Tree t : families.list()) {
                        VersionSet.CheckpointPin pin = t.versions.pinForCheckpoint();
                        trees.add(t);
                        pins.add(pin);
                        t.checkpoints++; // a drop from now on waits for this checkpoint
                        held.add(t);
                    }
                    dev.strata.lsm.wal.WalWriter wal = log.wal();
                    if (wal != null) {
                        // The segments retention keeps, by its own rule: below them every
                        // family's writes are in the versions just pinned. Not the lowest log
                        // number of any family: an idle family's is far below what retention
                        // keeps, and a deleter outside the mutex may be removing those segments
                        // now. Registered so that no deletion computed from now on goes past it.
                        long from = walKeepFrom();
                        walFloor = from;
                        checkpointWalFloors.add(walFloor);
                        activeEnd = wal.size();
                        if (wal.writtenEnd() < activeEnd) {
                            wal.sync();
                        }
                        long active = wal.segmentNumber();
                        List<Path> segments = new ArrayList<>();
                        for (Path segment : dev.strata.lsm.wal.WalSegments.list(io, dir)) {
                            long n = dev.strata.lsm.wal.WalSegments.parseNumber(segment).orElse(-1);
                            if (n >= from && n <= active) {
                                segments.add(segment);
                            }
                        }
                        tellOpsHook("checkpoint listed wal");
                        for (Path segment : segments) {
                            long n = dev.strata.lsm.wal.WalSegments.parseNumber(segment).orElse(-1);
                            if (n == active) {
                                activeTarget = temp.resolve(segment.getFileName());
                                activeLink = temp.resolve(segment.getFileName() + ".appending");
                                copied[0] += linkOrCopy(segment, activeLink);
                            } else {
                                // Closed: cut to its records when it was closed (PageFile#close
                                // truncates a preallocated or mapped file to what was written).
                                copied[0] += linkOrCopy(segment, temp.resolve(segment.getFileName()));
                            }
                        }
                    }
                } finally {
                    if (walFloor != null) {
                        // Linked: the links hold the segments whatever retention deletes now.
                        checkpointWalFloors.remove(walFloor);
                    }
                    writeQueue.leave(turn);
                }
            } finally {
                mutex.unlock();
            }
            tellOpsHook("checkpoint pinned");
            if (activeLink != null) {
                copied[0] += copyPrefix(activeLink, activeTarget, activeEnd);
                Files.delete(activeLink);
            }

            while (!trees.isEmpty()) {
                Tree t = trees.remove(0);
                VersionSet.CheckpointPin pin = pins.remove(0);
                Path familyDir = t.id == 0 ? temp : dev.strata.lsm.version.FamilyCatalog.familyDirectory(temp, t.id);
                Files.createDirectories(familyDir);
                t.versions.writeCheckpoint(pin, familyDir, (table, to) -> copied[0] += linkOrCopy(table, to));
                io.syncDirectory(familyDir);
            }
            taken.write(io, temp);
            Path familiesDir = temp.resolve(dev.strata.lsm.version.FamilyCatalog.DIRECTORY);
            if (Files.isDirectory(familiesDir)) {
                io.syncDirectory(familiesDir);
            }
            io.syncDirectory(temp);
            Files.move(temp, absolute, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            io.syncDirectory(parent);
            return copied[0];
        } catch (IOException | RuntimeException e) {
            for (VersionSet.CheckpointPin pin : pins) {
                pin.version().release();
            }
            try {
                ReaderStaging.deleteTree(temp);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            mutex.checkOpen();
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new StoreException("checkpoint of " + dir + " into " + absolute + " failed: " + e, e);
        } finally {
            if (!held.isEmpty()) {
                mutex.lock();
                try {
                    for (Tree t : held) {
                        t.checkpoints--;
                    }
                    mutex.signalBackground();
                } finally {
                    mutex.unlock();
                }
            }
        }
    }

    /**
     * With atomic flush and a WAL: waits (mutex held, at the head of the write queue) until no
     * flush group is between its first family's install edit and its last, so the versions a
     * checkpoint pins next hold every group whole or not at all. A {@code disableWal} batch
     * across families reaches the checkpoint only through a group's tables (the WAL tail does
     * not hold it), so pinning while a group was half installed tore it. No new group starts
     * meanwhile (switches need the write queue's turn); a group that fails twice while waited
     * for fails the checkpoint.
     */
    private void awaitNoGroupInstalling() {
        boolean told = false;
        int kicks = 0;
        while (groups.installing()) {
            mutex.checkOpen();
            if (!told) {
                groups.tellHook("checkpoint waits");
                told = true;
            }
            Throwable error = groups.error();
            if (error != null && !groups.running()) {
                if (kicks++ > 0) {
                    throw new StoreException("checkpoint of " + dir + ": a flush group being installed failed: "
                            + error, error);
                }
                groups.schedule();
            }
            mutex.awaitBackground(100);
        }
    }

    /** Copies the first {@code length} bytes of {@code from} into new file {@code to} and forces it; returns {@code length}. */
    private static long copyPrefix(Path from, Path to, long length) throws IOException {
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(from, java.nio.file.StandardOpenOption.READ);
             java.nio.channels.FileChannel out = java.nio.channels.FileChannel.open(to,
                     java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < length) {
                long n = in.transferTo(done, length - done, out);
                if (n <= 0) {
                    throw new IOException("WAL segment " + from + " ended at " + done + " bytes, before the "
                            + length + " the checkpoint needs");
                }
                done += n;
            }
            out.force(true);
        }
        return length;
    }

    /** Hard-links {@code table} as {@code to}, or copies and forces it; returns bytes copied. */
    private static long linkOrCopy(Path table, Path to) throws IOException {
        return ReaderStaging.linkOrCopy(table, to, true);
    }

    /**
     * Bulk ingest (see {@code LsmStore.ingest}): validates every file, then with the write
     * queue held (writers wait) flushes the memtables, takes one sequence number, writes each
     * file into a store table whose entries carry it, waits until no merge runs, asks the
     * policy where the tables go and installs them all in one version edit. A failure before
     * the edit deletes the tables written; a crash leaves them unnamed (deleted at open).
     */
    public void ingest(List<Path> files, dev.strata.lsm.IngestOptions options) {
        ingest(0, files, options);
    }

    /**
     * {@link #ingest(List, dev.strata.lsm.IngestOptions)} into column family {@code family}:
     * validated against the family's options, placed by its policy, after its memtables are
     * flushed (the other families' are not: the ingest's sequence number is above everything
     * of this family the WAL could replay, and the other families keep replaying their own).
     */
    public void ingest(int family, List<Path> files, dev.strata.lsm.IngestOptions options) {
        checkWritable("ingest");
        Tree t = tree(family);
        if (files == null || files.isEmpty()) {
            throw new IllegalArgumentException("ingest needs at least one table file");
        }
        if (options == null) {
            throw new IllegalArgumentException("ingest options must not be null (IngestOptions.defaults())");
        }
        if (files.stream().map(p -> p.toAbsolutePath().normalize()).distinct().count() != files.size()) {
            throw new IllegalArgumentException("ingest lists a file twice: " + files);
        }
        List<IngestJob.External> external = IngestJob.validateAll(io, files, t.config, options.verification());
        try {
            String overlap = IngestJob.overlap(external);
            if (overlap != null) {
                throw new IllegalArgumentException("ingest: the key ranges of " + overlap + " overlap; files ingested "
                        + "together must not (ingest them one call after the other)");
            }
            ingestValidated(t, external, options.isDeleteFiles());
        } finally {
            IngestJob.closeAll(external);
        }
        if (options.isDeleteFiles()) {
            for (Path p : files) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "ingested " + p + " but could not delete it", e);
                }
            }
        }
    }

    private void ingestValidated(Tree t, List<IngestJob.External> external, boolean move) {
        Memtables memtables = t.memtables;
        WriteControl writeControl = t.writeControl;
        TableOutput output = t.output;
        FlushLane flushLane = t.flushLane;
        MergeScheduler scheduler = t.scheduler;
        VersionSet versions = t.versions;
        PolicyBridge policy = t.policy;
        EngineCounters counters = t.counters;
        ObsoleteFiles obsolete = t.obsolete;
        List<Component> written = new ArrayList<>();
        boolean installed = false;
        mutex.lock();
        try {
            mutex.checkOpen();
            WriteQueue.Writer turn = writeQueue.awaitBarrierTurn();
            try {
                // Every earlier write goes into tables first: the ingest's sequence number is then
                // above everything the WAL could still replay, and its tables are the newest data.
                if (!memtables.set().active().isEmpty()) {
                    writeControl.switchMemtable();
                }
                awaitImmutableFlushed(t);
                mutex.checkOpen();
                if (t.dropped) {
                    throw new IllegalArgumentException("column family \"" + t.name + "\" was dropped; nothing ingested");
                }
                // WAL mode none: the ingest announces its tables with an intent (FlushLane.writeIntent),
                // so that a kill after its edit tore leaves a store that opens without them. No flush
                // of any family may write the store's FLUSHGROUP file meanwhile: none is pending
                // once every family's immutable memtables are flushed, and none starts while this
                // barrier holds the write queue.
                boolean intent = config.walMode() == WalSyncMode.NONE;
                if (intent) {
                    for (Tree other : families.all()) {
                        if (other != t && !other.dropped) {
                            awaitImmutableFlushed(other);
                        }
                    }
                    mutex.checkOpen();
                }
                long above = versions.lastSequence();
                long seq = log.reserve(1);
                mutex.unlock();
                try {
                    if (intent) {
                        FlushLane.writeIntent(io, dir, t.id, above);
                    }
                    for (IngestJob.External x : external) {
                        // A table the format lets carry one sequence number is adopted as it is
                        // (linked when moved, else copied); any other is rewritten entry by entry.
                        if (x.reader().footer().acceptsGlobalSeqno()) {
                            written.add(output.adopt(x.path(), x.reader().footer(), seq, move));
                        } else {
                            written.addAll(IngestJob.write(output, x, seq));
                        }
                    }
                } finally {
                    mutex.lock();
                }
                // No merge runs from the view the policy sees to the edit: the placement holds.
                while (scheduler.running() || flushLane.running()) {
                    mutex.checkOpen();
                    mutex.awaitBackground(100);
                }
                mutex.checkOpen();
                Version v = versions.current();
                List<dev.strata.lsm.policy.ComponentView> views = written.stream()
                        .map(c -> ComponentViews.of(c, false)).toList();
                Placement placement;
                try {
                    placement = policy.placeIngest(scheduler.treeView(v, written.toArray(new Component[0])), views);
                } catch (RuntimeException e) {
                    policy.error("merge policy " + policy.policyName() + " failed to place ingested tables", e);
                    placement = Placement.newRun(0);
                }
                Placement chosen = placement;
                versions.logAndApply(base -> {
                    List<List<Run>> levels;
                    try {
                        levels = Layouts.apply(base, Set.of(), written, chosen, versions::newRunId);
                        Layouts.checkChange(base, written, written, levels);
                    } catch (Layouts.PolicyError e) {
                        policy.error("merge policy " + policy.policyName() + " placed ingested tables badly ("
                                + e.getMessage() + "); using a new newest run of level 0", null);
                        levels = Layouts.apply(base, Set.of(), written, Placement.newRun(0), versions::newRunId);
                    }
                    return new VersionSet.Change(levels, written, List.of(), base.flushCounter(), policy.state(),
                            versions.logNumber(), seq);
                });
                installed = true;
                log.publish();
                if (intent) {
                    // Before the ingest returns: from here on its tables are acknowledged.
                    dev.strata.lsm.version.FlushGroupRecord.deleteIntent(io, dir);
                }
                counters.wroteIntoLevel(chosen.level(), written.stream().mapToLong(c -> c.meta().sizeBytes()).sum());
                counters.wroteAs(StoreStats.INGEST, written.stream().mapToLong(c -> c.meta().sizeBytes()).sum());
                scheduler.scheduleMerges();
            } finally {
                writeQueue.leave(turn);
            }
        } catch (IOException e) {
            throw new StoreException("ingest into " + t.dir + " failed: " + e, e);
        } finally {
            try {
                for (Component c : written) {
                    if (installed) {
                        obsolete.settled(c.meta().fileNumber());
                    } else {
                        obsolete.deleteUninstalled(c.meta().fileNumber());
                    }
                }
            } finally {
                mutex.unlock();
            }
        }
    }

    /** Waits (mutex held, at the head of the write queue) until every immutable memtable is flushed. */
    private void awaitImmutableFlushed(Tree t) {
        Memtables memtables = t.memtables;
        FlushLane flushLane = t.flushLane;
        int kicks = 0;
        while (!memtables.set().immutable().isEmpty()) {
            mutex.checkOpen();
            Throwable flushError = flushLane.error();
            if (flushError != null && !flushLane.running()) {
                if (kicks++ > 0) {
                    throw new StoreException("flush of " + dir + " failed: " + flushError, flushError);
                }
                flushLane.schedule();
            }
            mutex.awaitBackground(100);
        }
    }

    /** At most this many plans of one manual compaction, each made stale by a flush or merge meanwhile. */
    private static final int MANUAL_COMPACTION_ATTEMPTS = 100;

    /**
     * Compacts the keys in [from, to) (null bounds are open): flushes the memtable, waits until
     * no flush or merge runs, asks the policy for its plan ({@link
     * dev.strata.lsm.policy.MergePolicy#planCompaction}), runs it and returns when it is done.
     * A plan made stale by a flush or merge while the policy planned is made again.
     *
     * @throws IllegalArgumentException if {@code from} is after {@code to}
     * @throws StoreException if the policy's plan is invalid or fails, or the merge fails
     */
    public void compactRange(byte[] from, byte[] to) {
        compactRange(0, from, to);
    }

    /** {@link #compactRange(byte[], byte[])} in column family {@code family}, by its policy. */
    public void compactRange(int family, byte[] from, byte[] to) {
        checkRange(from, to);
        checkWritable("compactRange");
        Tree t = tree(family);
        FlushLane flushLane = t.flushLane;
        Memtables memtables = t.memtables;
        MergeScheduler scheduler = t.scheduler;
        PolicyBridge policy = t.policy;
        VersionSet versions = t.versions;
        flush(t);
        for (int attempt = 1; ; attempt++) {
            Version seen;
            dev.strata.lsm.policy.TreeView view;
            mutex.lock();
            try {
                while (!t.dropped && (flushLane.running() || !memtables.set().immutable().isEmpty()
                        || scheduler.running())) {
                    mutex.checkOpen();
                    mutex.awaitBackground(100);
                }
                mutex.checkOpen();
                checkNotDropped(t, "compacted");
                seen = versions.current();
                view = scheduler.treeView(seen);
            } finally {
                mutex.unlock();
            }
            List<MergeTask> tasks;
            try {
                tasks = policy.planCompaction(view, from, to);
            } catch (RuntimeException e) {
                policy.error("merge policy " + policy.policyName() + " failed to plan a manual compaction", e);
                throw new StoreException("compactRange: merge policy " + policy.policyName() + " failed to plan it: " + e, e);
            }
            if (tasks.isEmpty()) {
                return;
            }
            mutex.lock();
            try {
                mutex.checkOpen();
                checkNotDropped(t, "compacted");
                if (versions.current() != seen || scheduler.running()) {
                    if (attempt >= MANUAL_COMPACTION_ATTEMPTS) {
                        throw new StoreException("compactRange: the tree changed under " + attempt
                                + " plans in a row (flushes or merges ran meanwhile)");
                    }
                    continue;
                }
                String problem = scheduler.startManual(tasks);
                if (problem != null) {
                    policy.error("rejected manual compaction from policy " + policy.policyName() + ": " + problem, null);
                    throw new StoreException("compactRange: merge policy " + policy.policyName()
                            + " planned a merge the store cannot run: " + problem);
                }
                List<String> failures = new ArrayList<>();
                for (MergeTask task : tasks) {
                    String outcome;
                    while ((outcome = scheduler.manualOutcome(task)) == null) {
                        mutex.checkOpen();
                        mutex.awaitBackground(100);
                    }
                    if (!outcome.isEmpty()) {
                        failures.add(outcome);
                    }
                }
                if (!failures.isEmpty()) {
                    checkNotDropped(t, "compacted");
                    throw new StoreException("compactRange failed: " + String.join("; ", failures));
                }
                return;
            } finally {
                mutex.unlock();
            }
        }
    }

    /**
     * Estimated bytes the tables hold for keys in [from, to) (null bounds are open), from each
     * table's interior-page fences; the memtables are not counted (flush first to count them).
     */
    public long approximateSize(byte[] from, byte[] to) {
        return approximateSize(0, from, to);
    }

    /** {@link #approximateSize(byte[], byte[])} of column family {@code family}. */
    public long approximateSize(int family, byte[] from, byte[] to) {
        checkRange(from, to);
        mutex.checkOpen();
        Version v = tree(family).versions.acquire();
        try {
            if (from != null && to != null && Arrays.equals(from, to)) {
                return 0;
            }
            dev.strata.lsm.policy.TreeView.RangeEstimator estimator = ComponentViews.estimator(v);
            long bytes = 0;
            for (Component c : v.components()) {
                bytes += estimator.bytesInRange(ComponentViews.of(c, false), from, to);
            }
            return bytes;
        } finally {
            v.release();
        }
    }

    /** Throws if {@code t}'s family was dropped meanwhile ({@code what}: nothing was ...). */
    private static void checkNotDropped(Tree t, String what) {
        if (t.dropped) {
            throw new IllegalArgumentException("column family \"" + t.name + "\" was dropped; nothing " + what);
        }
    }

    private static void checkRange(byte[] from, byte[] to) {
        if (from != null && to != null && Arrays.compareUnsigned(from, to) > 0) {
            throw new IllegalArgumentException("range from " + Arrays.toString(from) + " is after to "
                    + Arrays.toString(to) + ": from must not be after to");
        }
    }

    /** Counters and gauges of the default family (the IO counters are the store's). */
    public StoreStats stats() {
        return tree.stats();
    }

    /** Counters and gauges of column family {@code family} (the IO counters are the store's). */
    public StoreStats stats(int family) {
        mutex.checkOpen();
        return tree(family).stats();
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

    /** The current version of column family {@code family} (by id; for tests and tools); do not hold on to it. */
    public Version currentVersion(int family) {
        return tree(family).versions.current();
    }

    /** The store's directory (for a read-only engine, the store it reads). */
    public Path directory() {
        Path source = readOnlySource;
        return source != null ? source : dir;
    }

    /**
     * The configuration the store was opened with, running the merge policy the store chose when
     * that configuration names none (for a read-only engine, the caller's).
     */
    public StoreConfig config() {
        StoreConfig c = readOnlyConfig;
        return c != null ? c : config;
    }

    /**
     * Lets queued writes finish, waits for running jobs, and releases the store. In WAL
     * mode none, or when a memtable holds writes made without the WAL
     * ({@code WriteOptions.disableWal}), it first flushes the memtables, those writes' only copy
     * (RocksDB's close flushes unpersisted data likewise).
     *
     * @throws StoreException after releasing the store, if flushing those last writes failed:
     *     they are lost
     */
    @Override
    public void close() {
        Throwable[] unflushed = {null};
        mutex.lock();
        try {
            // Writes queued before close() finish first; later ones find the store closed.
            boolean closing = atQueueHead(() -> {
                if (config.walMode() == WalSyncMode.NONE || holdsUnloggedWrites()) {
                    unflushed[0] = flushForClose();
                }
                mutex.markClosed();
                mutex.signalBackground();
            });
            if (!closing) {
                return;
            }
            while (families.all().stream().anyMatch(Tree::busy)) {
                // The store's jobs still queued (on a shared pool, behind other stores' jobs)
                // run here, finding the store closed: close waits for its own jobs only.
                mutex.unlock();
                try {
                    threads.runQueued();
                } finally {
                    mutex.lock();
                }
                if (families.all().stream().anyMatch(Tree::busy)) {
                    mutex.awaitBackground(100);
                }
            }
            log.close();
        } finally {
            mutex.unlock();
        }
        for (Tree t : families.all()) {
            t.obsolete.deleteObsoleteTables(true); // what lazy deletion still holds
        }
        shutdownQuietly();
        Path staged = staging;
        if (staged != null) {
            try {
                ReaderStaging.deleteTree(staged);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not delete the reader's staging directory " + staged, e);
            }
        }
        if (unflushed[0] != null) {
            throw new StoreException("store " + dir + " is closed without its last writes: "
                    + (config.walMode() == WalSyncMode.NONE ? "WAL mode none" : "writes without the WAL")
                    + " are kept only in memory, and flushing them failed: " + unflushed[0], unflushed[0]);
        }
    }

    /** Whether a memtable of any family holds writes made without the WAL. Mutex held. */
    private boolean holdsUnloggedWrites() {
        for (Tree t : families.all()) {
            if (t.memtables.set().active().holdsUnloggedWrites()) {
                return true;
            }
            for (Memtable m : t.memtables.set().immutable()) {
                if (m.holdsUnloggedWrites()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * In WAL mode none, or with writes made without the WAL, the memtables are the only copy of
     * the last writes: flushes them, with
     * one fresh attempt after a failure as {@link #flush()} makes. Returns the error that
     * lost them, or null. Mutex held, at the head of the write queue.
     */
    private Throwable flushForClose() {
        for (Tree t : families.all()) {
            if (!t.memtables.set().active().isEmpty()) {
                t.writeControl.switchMemtable();
            }
        }
        for (Tree t : families.all()) {
            int attempts = 0;
            while (!t.memtables.set().immutable().isEmpty()) {
                Throwable flushError = t.flushLane.error();
                if (flushError != null && !t.flushLane.running()) {
                    if (attempts++ > 0) {
                        return flushError;
                    }
                    t.flushLane.schedule();
                }
                mutex.awaitBackground(100);
            }
        }
        return null;
    }

    /**
     * For the memtable budget: switches every family's non-empty active memtable out and
     * schedules its flush, at the head of the write queue as a flush does (no write group is
     * between the WAL and the memtables meanwhile). A closed store does nothing.
     */
    private void switchMemtablesForBudget() {
        mutex.lock();
        try {
            atQueueHead(() -> {
                for (Tree t : families.all()) {
                    if (!t.memtables.set().active().isEmpty()) {
                        t.writeControl.switchMemtable();
                    }
                }
            });
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Mutex held: unless the store is closed, queues a barrier in the write queue, waits until
     * it is at the head (every write queued before it is done, later ones wait, so no write
     * group is between the WAL and the memtables) and runs {@code body} there, unless the store
     * closed during the wait. Returns whether {@code body} ran; the barrier is left either way.
     */
    private boolean atQueueHead(Runnable body) {
        if (mutex.closed()) {
            return false;
        }
        WriteQueue.Writer w = writeQueue.awaitBarrierTurn();
        try {
            if (mutex.closed()) {
                return false;
            }
            body.run();
            return true;
        } finally {
            writeQueue.leave(w);
        }
    }

    /**
     * A memtable of this store grew, was switched out, flushed or dropped: its share of the
     * memtable budget is counted again (no-op without a budget, or before the store joined it).
     */
    private void memtablesChanged() {
        MemtableBudget.Share share = budgetShare;
        if (share != null) {
            share.refresh();
        }
    }

    private void shutdownQuietly() {
        MemtableBudget.Share share = budgetShare;
        if (share != null) {
            share.release();
        }
        mutex.markClosed();
        threads.close();
        for (Tree t : families.all()) {
            t.closeFiles();
        }
        // After a failed open, recovery may have started a WAL segment; after close() this is a no-op.
        log.close();
        metrics.close();
        dirLock.close();
        PolicyClaims.release(config.mergePolicyInstance(), dir);
    }
}
