package dev.strata.lsm;

import dev.strata.lsm.io.FileChannelStorageIOFactory;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.io.StorageIOFactory;
import dev.strata.lsm.io.StorageIOs;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameterException;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.basic.SizeTieredPolicyFactory;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.wal.WalWriter;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a store is opened with. Immutable; build one with {@link #builder()} or read
 * one from XML with {@link #fromXml(Path)}. Every value is validated once, when built: a bad
 * value is a {@link ConfigException} that names it ({@link ConfigException#setting()}) and
 * says what is allowed. The merge policy and storage IO named here are looked up and their
 * parameters parsed then too; the store creates them from those typed values
 * ({@link #createMergePolicy()}, {@link #createStorageIO()}) without parsing anything again,
 * and a copy made with {@link #toBuilder()} keeps them unless it names another.
 */
public final class StoreConfig {
    /** The default memtable size: 64 MiB. */
    public static final long DEFAULT_MEMTABLE_BYTES = 64L << 20;
    /** The default number of full memtables that may wait for their flush before writers stall. */
    public static final int DEFAULT_MAX_IMMUTABLE_MEMTABLES = 2;
    /** The default block cache size: 128 MiB. */
    public static final long DEFAULT_BLOCK_CACHE_BYTES = 128L << 20;
    /** The default number of merge threads. */
    public static final int DEFAULT_BACKGROUND_THREADS = 2;
    /**
     * The merge policy a new store runs when its configuration names none and lsm-policies (which
     * registers it) is on the class path; without it, {@value #FALLBACK_MERGE_POLICY}. Why: docs/policies.md,
     * "The default policy and what a store records".
     */
    public static final String NEW_STORE_MERGE_POLICY = "one-leveling";
    /**
     * The merge policy of a store whose configuration names none and whose manifest records
     * none (created before stores recorded their policy), and of a new store without
     * lsm-policies: the policy lsm-core ships.
     */
    public static final String FALLBACK_MERGE_POLICY = SizeTieredPolicyFactory.NAME;
    /** The policy tick's default period: a few seconds, as RocksDB's periodic compaction check. */
    public static final long DEFAULT_POLICY_TICK_MILLIS = 5000;
    /**
     * The default most pieces one merge is split into: {@value} (never split). Why:
     * docs/benchmarks.md, "20M records with lz4 after session 20": with 4, a 20M-record lz4
     * fill under {@code one-leveling} ran more, shorter merges (WA 8.17 against 5.90) at 0.74
     * times the records/s of 1, though 4 removed the zstd-bottommost stop of a starved machine
     * ("Subcompactions by data size, session 20 (issue 36)"): set it where that matters.
     */
    public static final int DEFAULT_SUBCOMPACTIONS = 1;
    /** The most pieces one merge may be split into: {@value}. */
    public static final int MAX_SUBCOMPACTIONS = 64;
    /** The default delayed write rate: 16 MiB a second, RocksDB's {@code delayed_write_rate} default. */
    public static final long DEFAULT_DELAYED_WRITE_RATE = 16L << 20;
    /** The lowest delayed write rate accepted: 16 KiB a second (RocksDB's lowest delayed rate). */
    public static final long MIN_DELAYED_WRITE_RATE = 16L << 10;
    /** The highest delayed write rate accepted: 1 TiB a second. */
    public static final long MAX_DELAYED_WRITE_RATE = 1L << 40;
    /** The default largest value a put accepts: 64 MiB. */
    public static final int DEFAULT_MAX_VALUE_BYTES = 64 << 20;
    /** The default manifest size at which it is rewritten as one snapshot: 4 MiB. */
    public static final long DEFAULT_MANIFEST_REWRITE_BYTES = 4L << 20;
    /** The smallest memtable size accepted. */
    public static final long MIN_MEMTABLE_BYTES = 4096;

    private final long memtableBytes;
    private final int maxImmutableMemtables;
    private final WalSyncMode walMode;
    /** Atomic flush as set, or null: on in WAL mode none, off otherwise ({@link #atomicFlush()}). */
    private final Boolean atomicFlush;
    private final int pageSize;
    private final int bloomBitsPerKey;
    /** Null without one. */
    private final PrefixExtractor prefixExtractor;
    private final Compression compression;
    private final Compression bottommostCompression;
    private final int compressionLevel;
    private final int lz4Acceleration;
    private final java.util.SortedMap<Integer, Compression> levelCompression;
    private final LeafEncoding leafEncoding;
    private final int restartInterval;
    private final ParallelCompression parallelCompression;
    private final long blockCacheBytes;
    private final CacheAdmission blockCacheAdmission;
    private final boolean offHeap;
    private final int backgroundThreads;
    private final long policyTickMillis;
    private final long delayedWriteRate;
    private final int subcompactions;
    private final int maxValueBytes;
    private final long manifestRewriteBytes;
    private final long obsoleteDeleteBatchBytes;
    private final String mergePolicy;
    /** Whether the policy was chosen (by name or instance) rather than left to the store. */
    private final boolean mergePolicyNamed;
    /** Null unless the builder was given an instance. */
    private final MergePolicy mergePolicyInstance;
    private final String mergeOperator;
    private final int maxSuccessiveMerges;
    private final Map<String, FamilyOptions> families;
    private final Map<String, String> mergePolicyParams;
    private final MeterRegistry meterRegistry;
    private final StorageIO storageIO;
    private final String storageIOName;
    private final Map<String, String> storageIOParams;
    private final StoreListener listener;
    private final SharedResources sharedResources;
    private final ValueExpiry valueExpiry;
    private final java.time.InstantSource clock;
    /** The named policy's factory and typed parameters, resolved at build; null for an instance. */
    private final MergePolicyFactory mergePolicyFactory;
    private final PolicyParameters mergePolicyParameters;
    /** The named storage IO's factory and typed parameters, resolved at build. */
    private final StorageIOFactory storageIOFactory;
    private final PolicyParameters storageIOParameters;
    /** The validated configuration of each family configured here, by name. */
    private final Map<String, StoreConfig> familyConfigs;

    private StoreConfig(Builder b, Map<String, StoreConfig> familyConfigs) {
        this.memtableBytes = b.memtableBytes;
        this.maxImmutableMemtables = b.maxImmutableMemtables;
        this.walMode = b.walMode;
        this.atomicFlush = b.atomicFlush;
        this.pageSize = b.pageSize;
        this.bloomBitsPerKey = b.bloomBitsPerKey;
        this.prefixExtractor = b.prefixExtractor;
        this.compression = b.compression;
        this.bottommostCompression = b.bottommostCompression;
        this.compressionLevel = b.compressionLevel;
        this.lz4Acceleration = b.lz4Acceleration;
        this.levelCompression = Collections.unmodifiableSortedMap(new java.util.TreeMap<>(b.levelCompression));
        this.leafEncoding = b.leafEncoding;
        this.restartInterval = b.restartInterval;
        this.parallelCompression = b.parallelCompression;
        this.blockCacheBytes = b.blockCacheBytes;
        this.blockCacheAdmission = b.blockCacheAdmission;
        this.offHeap = b.offHeap;
        this.backgroundThreads = b.backgroundThreads;
        this.policyTickMillis = b.policyTickMillis;
        this.delayedWriteRate = b.delayedWriteRate;
        this.subcompactions = b.subcompactions;
        this.maxValueBytes = b.maxValueBytes;
        this.manifestRewriteBytes = b.manifestRewriteBytes;
        this.obsoleteDeleteBatchBytes = b.obsoleteDeleteBatchBytes;
        this.mergePolicy = b.mergePolicy;
        this.mergePolicyNamed = b.mergePolicyNamed;
        this.mergePolicyInstance = b.mergePolicyInstance;
        this.mergeOperator = b.mergeOperator;
        this.maxSuccessiveMerges = b.maxSuccessiveMerges;
        this.families = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.families));
        this.mergePolicyParams = Collections.unmodifiableMap(new LinkedHashMap<>(b.mergePolicyParams));
        this.meterRegistry = b.meterRegistry;
        this.storageIO = b.storageIO;
        this.storageIOName = b.storageIOName;
        this.storageIOParams = Collections.unmodifiableMap(new LinkedHashMap<>(b.storageIOParams));
        this.listener = b.listener;
        this.sharedResources = b.sharedResources;
        this.valueExpiry = b.valueExpiry;
        this.clock = b.clock;
        this.mergePolicyFactory = b.mergePolicyFactory;
        this.mergePolicyParameters = b.mergePolicyParameters;
        this.storageIOFactory = b.storageIOFactory;
        this.storageIOParameters = b.storageIOParameters;
        this.familyConfigs = Collections.unmodifiableMap(new LinkedHashMap<>(familyConfigs));
    }

    /**
     * A builder with every default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The default configuration.
     *
     * @return a configuration with every default
     */
    public static StoreConfig defaults() {
        return builder().build();
    }

    /**
     * Reads a configuration from an XML file validated against the schema shipped in
     * lsm-core (docs/config.md).
     *
     * @param file the XML file
     * @return the configuration it describes, validated
     * @throws ConfigException naming the file, line and column of the first problem
     */
    public static StoreConfig fromXml(Path file) {
        return dev.strata.lsm.config.XmlConfig.read(file);
    }

    /**
     * A builder starting from this configuration's values.
     *
     * @return a new builder holding every value of this configuration
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.memtableBytes = memtableBytes;
        b.maxImmutableMemtables = maxImmutableMemtables;
        b.walMode = walMode;
        b.atomicFlush = atomicFlush;
        b.pageSize = pageSize;
        b.bloomBitsPerKey = bloomBitsPerKey;
        b.prefixExtractor = prefixExtractor;
        b.compression = compression;
        b.bottommostCompression = bottommostCompression;
        b.compressionLevel = compressionLevel;
        b.lz4Acceleration = lz4Acceleration;
        b.levelCompression = new java.util.TreeMap<>(levelCompression);
        b.leafEncoding = leafEncoding;
        b.restartInterval = restartInterval;
        b.parallelCompression = parallelCompression;
        b.blockCacheBytes = blockCacheBytes;
        b.blockCacheAdmission = blockCacheAdmission;
        b.offHeap = offHeap;
        b.backgroundThreads = backgroundThreads;
        b.policyTickMillis = policyTickMillis;
        b.delayedWriteRate = delayedWriteRate;
        b.subcompactions = subcompactions;
        b.maxValueBytes = maxValueBytes;
        b.manifestRewriteBytes = manifestRewriteBytes;
        b.obsoleteDeleteBatchBytes = obsoleteDeleteBatchBytes;
        b.mergePolicy = mergePolicy;
        b.mergePolicyNamed = mergePolicyNamed;
        b.mergePolicyInstance = mergePolicyInstance;
        b.mergeOperator = mergeOperator;
        b.maxSuccessiveMerges = maxSuccessiveMerges;
        b.families = new LinkedHashMap<>(families);
        b.mergePolicyParams = new LinkedHashMap<>(mergePolicyParams);
        b.meterRegistry = meterRegistry;
        b.storageIO = storageIO;
        b.storageIOName = storageIOName;
        b.storageIOParams = new LinkedHashMap<>(storageIOParams);
        b.listener = listener;
        b.sharedResources = sharedResources;
        b.valueExpiry = valueExpiry;
        b.clock = clock;
        b.mergePolicyFactory = mergePolicyFactory;
        b.mergePolicyParameters = mergePolicyParameters;
        b.storageIOFactory = storageIOFactory;
        b.storageIOParameters = storageIOParameters;
        return b;
    }

    /**
     * Bytes of memtable data before it is switched out and flushed (default 64 MiB).
     *
     * @return the memtable size in bytes
     */
    public long memtableBytes() {
        return memtableBytes;
    }

    /**
     * Full memtables waiting for flush before writers stall (default 2).
     *
     * @return the number of full memtables that may wait
     */
    public int maxImmutableMemtables() {
        return maxImmutableMemtables;
    }

    /**
     * WAL durability (default {@link WalSyncMode#ASYNC}: every acknowledged write survives a
     * process kill).
     *
     * @return the WAL mode
     */
    public WalSyncMode walMode() {
        return walMode;
    }

    /**
     * Whether the column families flush together, at one cut, committed all or nothing (RocksDB's
     * {@code atomic_flush}): when any family switches its memtable out, every family with
     * unflushed writes does, and their tables become part of the store together, so a batch
     * across families survives a crash whole or not at all even where no WAL record covers it.
     * Default: on in WAL mode none (where nothing else makes such a batch atomic), off in the
     * modes with a WAL, where the WAL's record does it; turn it on there for batches written
     * with {@link WriteOptions#disableWal}. A store with the default family only is unaffected.
     *
     * @return true when the families flush together
     */
    public boolean atomicFlush() {
        return atomicFlush != null ? atomicFlush : walMode == WalSyncMode.NONE;
    }

    /**
     * SSTable page size (default 4096).
     *
     * @return the page size in bytes
     */
    public int pageSize() {
        return pageSize;
    }

    /**
     * Bloom filter bits per key (default 10; 0 disables filters).
     *
     * @return bits per key, 0 for no filter
     */
    public int bloomBitsPerKey() {
        return bloomBitsPerKey;
    }

    /**
     * The prefix extractor whose prefixes new tables add to their bloom filter for prefix
     * scans ({@link LsmStore#scanPrefix(byte[])}), or null (the default): none.
     *
     * @return the extractor, or null
     */
    public PrefixExtractor prefixExtractor() {
        return prefixExtractor;
    }

    /**
     * How new tables encode their leaves: {@link LeafEncoding#PREFIX} (the default; keys
     * prefix-compressed between restart points) or {@link LeafEncoding#PLAIN} (the leaf of
     * formats 1 and 2). Existing tables keep theirs until a merge rewrites them.
     *
     * @return the leaf encoding
     */
    public LeafEncoding leafEncoding() {
        return leafEncoding;
    }

    /**
     * Cells between restart points (whole keys) in a prefix-compressed leaf: 1 to 1024, default 16.
     *
     * @return cells between restart points
     */
    public int restartInterval() {
        return restartInterval;
    }

    /**
     * Where new tables' pages are compressed: on the flush's or merge's own thread (off), on a
     * shared pool of compressor threads while the build goes on (on), or on the pool while the
     * process leaves a core idle (auto, the default). See
     * {@link Builder#parallelCompression(ParallelCompression)}.
     *
     * @return where pages are compressed
     */
    public ParallelCompression parallelCompression() {
        return parallelCompression;
    }

    /**
     * The codec of new tables written to {@code level} (what {@code TableOptions.of(config, level,
     * bottommost)} gives the table writer).
     *
     * @param level the level the table is written to, 0 or more
     * @param bottommost whether the table holds the oldest data of its key range
     * @return the codec to write the table with
     */
    public Compression compressionFor(int level, boolean bottommost) {
        if (bottommost && bottommostCompression != null) {
            return bottommostCompression;
        }
        return levelCompression.getOrDefault(level, compression);
    }

    /**
     * The page codec of new tables (default {@link Compression#NONE}).
     *
     * @return the default page codec
     */
    public Compression compression() {
        return compression;
    }

    /**
     * The codec of tables written with the oldest data of their key range, or null to use the
     * level's codec.
     *
     * @return the bottommost codec, or null
     */
    public Compression bottommostCompression() {
        return bottommostCompression;
    }

    /**
     * The codec level (zstd: 1 to 22, default 3; lz4 and snappy ignore it).
     *
     * @return the codec level
     */
    public int compressionLevel() {
        return compressionLevel;
    }

    /**
     * LZ4's acceleration (1, the default, to {@value Compression#MAX_LZ4_ACCELERATION}): see
     * {@link Builder#lz4Acceleration(int)}.
     *
     * @return the acceleration lz4 compresses new tables' pages with
     */
    public int lz4Acceleration() {
        return lz4Acceleration;
    }

    /**
     * Codecs set for single levels (level to codec).
     *
     * @return the per-level codecs, by level (empty when none)
     */
    public java.util.SortedMap<Integer, Compression> levelCompression() {
        return levelCompression;
    }

    /**
     * Largest key accepted: {@code pageSize / 4 - 32} bytes.
     *
     * @return the largest key in bytes
     */
    public int maxKeyBytes() {
        return TableOptions.maxKeySize(pageSize);
    }

    /**
     * The largest {@link #maxValueBytes()} a configuration with {@code pageSize} may set: a put
     * of the largest key and a value this size still fits one WAL record
     * ({@link WalWriter#MAX_RECORD_SIZE} less the record's batch header of 12 bytes and one
     * operation's type byte and two length varints).
     *
     * @param pageSize a table page size in bytes
     * @return the largest value size in bytes
     */
    public static int maxValueBytesLimit(int pageSize) {
        return WalWriter.MAX_RECORD_SIZE - 12 - 1 - 5 - 5 - TableOptions.maxKeySize(pageSize);
    }

    /**
     * Largest value accepted (default 64 MiB).
     *
     * @return the largest value in bytes
     */
    public int maxValueBytes() {
        return maxValueBytes;
    }

    /**
     * Block cache capacity (default 128 MiB; 0 disables the cache).
     *
     * @return the cache's capacity in bytes
     */
    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    /**
     * Which leaves a lookup that missed the store's own block cache puts into it:
     * {@link CacheAdmission#SECOND_MISS} (the default) or {@link CacheAdmission#EVERY_MISS}.
     * XML: {@code <blockCache admission="second-miss"/>}. A cache shared through
     * {@link SharedResources} has the admission its builder gives.
     *
     * @return the admission of the store's own block cache
     */
    public CacheAdmission blockCacheAdmission() {
        return blockCacheAdmission;
    }

    /**
     * Whether the store's memory is kept off the Java heap (default false): its memtables'
     * arenas and, unless it uses {@link #sharedResources()}, its block cache's page images in
     * direct memory, which the collector neither walks nor copies. XML: {@code <memory
     * offHeap="true"/>}. Nothing on disk changes. docs/engine.md, "Memory off the heap".
     *
     * @return true when memtables and cached pages are in direct memory
     */
    public boolean offHeap() {
        return offHeap;
    }

    /**
     * Threads running flushes and merges (default 2).
     *
     * @return the number of background threads
     */
    public int backgroundThreads() {
        return backgroundThreads;
    }

    /**
     * How often, in milliseconds, the merge policy is consulted although nothing was flushed
     * or merged, so that time-based triggers (file or tombstone age) fire on an idle store;
     * 0 disables the tick.
     *
     * @return the tick interval in milliseconds, or 0
     */
    public long policyTickMillis() {
        return policyTickMillis;
    }

    /**
     * The delayed write rate, in bytes a second (RocksDB's {@code delayed_write_rate}; default
     * {@value #DEFAULT_DELAYED_WRITE_RATE}, 16 MiB/s): while the merge policy answers
     * {@link dev.strata.lsm.policy.WriteAdmission#SLOW_DOWN}, write groups go in at most this
     * fast — each is delayed by its bytes over the rate, less what the time since the last
     * group paid for — and slower as the policy's
     * {@link dev.strata.lsm.policy.MergePolicy#slowdownDepth} nears 1, halving for each sixth
     * of the way, to 1/64 of this rate at the stop. Delays shorter than a millisecond are
     * carried to the next group rather than slept, so one group waits at most its bytes over
     * the rate plus a millisecond. Store-wide: with column families, the slowest rate any
     * family asks for paces every write group.
     *
     * @return the delayed write rate in bytes a second
     */
    public long delayedWriteRate() {
        return delayedWriteRate;
    }

    /**
     * The most key-range pieces one merge is split into, merged in parallel (RocksDB's
     * {@code max_subcompactions}; default {@value #DEFAULT_SUBCOMPACTIONS}, 1 to
     * {@value #MAX_SUBCOMPACTIONS}, 1 = never split). A rewrite whose output spec cuts files
     * of a size, whose inputs hold no range tombstone and which reads at least four such
     * file sizes of input data (its tables' key and value bytes, not their files) is split at
     * input tables' smallest keys into pieces of about equal input data (at least two file
     * sizes each); the first piece runs on the merge's thread, the others on the block-merge
     * threads (a store's own pool has one per piece beyond the first, at least two), and the
     * outputs of all are installed in one
     * version edit once every piece has ended (docs/engine.md, "Subcompactions"). Flushes,
     * moves and block compactions are never split.
     *
     * @return the most pieces of one merge
     */
    public int subcompactions() {
        return subcompactions;
    }

    /**
     * The manifest is rewritten as a snapshot once its log exceeds this size (default 4 MiB).
     *
     * @return the manifest size in bytes
     */
    public long manifestRewriteBytes() {
        return manifestRewriteBytes;
    }

    /**
     * Lazy deletion of obsolete table files (seed 001's 200 MB batches): files no live version
     * references are deleted once together they hold at least this many bytes, and all of
     * them when the store closes. 0 (the default) deletes each as soon as it is obsolete.
     * Until deleted they occupy disk space; a crash leaves them to the next open, which
     * deletes every table file the manifest does not name.
     *
     * @return the batch size in bytes, or 0
     */
    public long obsoleteDeleteBatchBytes() {
        return obsoleteDeleteBatchBytes;
    }

    /**
     * Name of the merge policy: its registered name, or, when the builder was given an instance
     * ({@link Builder#mergePolicy(MergePolicy)}), the instance's class's simple name, which is
     * for logs and reports only (no registry resolves it, and nothing on disk records it).
     *
     * <p>When the configuration names no policy ({@link #mergePolicyNamed()} false) the store
     * chooses one when it opens (the one its manifest records; for a new store
     * {@value #NEW_STORE_MERGE_POLICY} when lsm-policies is on the class path, else
     * {@code size-tiered}; see docs/policies.md, "The default policy and what a store records"),
     * and {@link LsmStore#config()} reports the one it runs. A configuration built here and not
     * yet opened then reports {@code size-tiered}, the policy of a store that records none.
     *
     * @return the policy's name
     */
    public String mergePolicy() {
        return mergePolicy;
    }

    /**
     * Whether this configuration chooses the merge policy (XML {@code <mergePolicy>}, a
     * {@link Builder#mergePolicy} call, a family's own policy), rather than leaving it to the
     * store: a store opened with a configuration that names its policy runs it and records it
     * in its manifest; one opened with a configuration that names none runs the policy its
     * manifest records. False by default.
     *
     * @return whether the policy is named
     */
    public boolean mergePolicyNamed() {
        return mergePolicyNamed;
    }

    /**
     * This configuration running policy {@code name} with {@code params}, still naming none
     * ({@link #mergePolicyNamed()} stays false): what a store opened with this configuration
     * reports ({@link LsmStore#config()}) once it has chosen the policy it runs, its recorded one
     * or the default for a new store. Families taking the store's policy take this one.
     *
     * @param name the policy's registered name
     * @param params its raw parameters (absent ones take their defaults)
     * @return the configuration with that policy
     * @throws IllegalStateException if this configuration names its policy
     * @throws ConfigException for an unknown policy or a bad parameter
     */
    public StoreConfig withStoreChosenMergePolicy(String name, Map<String, String> params) {
        if (mergePolicyNamed) {
            throw new IllegalStateException("the configuration names merge policy " + mergePolicy
                    + "; the store does not choose one");
        }
        if (mergePolicyInstance == null && mergePolicy.equals(name)
                && mergePolicyParams.equals(params == null ? Map.of() : params)) {
            return this; // resolved at build already
        }
        Builder b = toBuilder().mergePolicy(name, params);
        b.mergePolicyNamed = false;
        return b.build();
    }

    /**
     * The merge policy instance given to the builder ({@link Builder#mergePolicy(MergePolicy)}),
     * or null: then the store creates the policy {@link #mergePolicy()} names, with
     * {@link #mergePolicyParams()}, each time it opens.
     *
     * @return the instance, or null
     */
    public MergePolicy mergePolicyInstance() {
        return mergePolicyInstance;
    }

    /**
     * Name of the merge operator {@code LsmStore.merge} operands are combined with (see
     * {@link dev.strata.lsm.mergeop.MergeOperator}), or null for none (default): merges are then refused.
     *
     * @return the operator's name, or null
     */
    public String mergeOperator() {
        return mergeOperator;
    }

    /**
     * The successive-merge bound (RocksDB's {@code max_successive_merges}): when a merge
     * operand is written and the active memtable already holds this many operands in a row on
     * top of the key's newest value, the store reads the key's value at the write's sequence
     * number and writes the operator's full merge of it and the operand as a value instead,
     * so a get of a hot key combines at most this many operands from the memtable. 0 (the
     * default): unbounded. See docs/engine.md, "Merge operator".
     *
     * @return the bound, 0 for none
     */
    public int maxSuccessiveMerges() {
        return maxSuccessiveMerges;
    }

    /**
     * The options of column families by name ({@code <family name="...">} in XML,
     * {@link Builder#family}): a family of the store with an entry here runs with these
     * options (in place of those it was created with), and a family named here that the
     * store does not have is created when the store opens. Empty by default.
     *
     * @return the family options by family name
     */
    public Map<String, FamilyOptions> familyOptions() {
        return families;
    }

    /**
     * Raw parameters of the merge policy, validated against its declaration (empty for an
     * instance).
     *
     * @return the parameters, name to unparsed value
     */
    public Map<String, String> mergePolicyParams() {
        return mergePolicyParams;
    }

    /**
     * The merge policy's typed parameters, every declared one given or defaulted, as parsed
     * and checked when this configuration was built; null when the builder was given an
     * instance.
     *
     * @return the typed parameters, or null
     */
    public PolicyParameters mergePolicyParameters() {
        return mergePolicyParameters;
    }

    /**
     * The merge policy a tree opened with this configuration runs: the instance given to the
     * builder, else a new policy from the named factory and {@link #mergePolicyParameters()}
     * (nothing is looked up or parsed again). Each call on a named policy makes a new one.
     *
     * @return the policy to run
     */
    public MergePolicy createMergePolicy() {
        return mergePolicyInstance != null ? mergePolicyInstance : mergePolicyFactory.create(mergePolicyParameters);
    }

    /**
     * The validated configuration column family {@code name} runs with when its options are
     * given here ({@link #familyOptions()}): this configuration with them applied
     * ({@link FamilyOptions#applyTo}), made when this one was built; null for a family not
     * configured here.
     *
     * @param name the family's name
     * @return the family's configuration, or null
     */
    public StoreConfig familyConfig(String name) {
        return familyConfigs.get(name);
    }

    /**
     * The host's meter registry, or null for a private one.
     *
     * @return the registry, or null
     */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /**
     * The storage IO instance given to the builder, or null: then the store creates one of
     * {@link #storageIOName()} (see {@link #createStorageIO()}).
     *
     * @return the instance, or null
     */
    public StorageIO storageIO() {
        return storageIO;
    }

    /**
     * Name of the storage IO implementation (default {@code nio}); unused when {@link #storageIO()}
     * is set.
     *
     * @return the implementation's name
     */
    public String storageIOName() {
        return storageIOName;
    }

    /**
     * Raw parameters of the storage IO implementation, validated against its declaration.
     *
     * @return the parameters, name to unparsed value
     */
    public Map<String, String> storageIOParams() {
        return storageIOParams;
    }

    /**
     * The storage IO a store opened with this configuration uses: the instance given to
     * {@link Builder#storageIO(StorageIO)}, else a new one of the named implementation
     * ({@code nio} by default) from the typed parameters resolved at build.
     *
     * @return the storage IO to use
     */
    public StorageIO createStorageIO() {
        return storageIO != null ? storageIO : storageIOFactory.create(storageIOParameters);
    }

    /**
     * The listener for completed flushes and merges, or null.
     *
     * @return the listener, or null
     */
    public StoreListener listener() {
        return listener;
    }

    /**
     * The block cache and memtable budget shared with other stores, or null (default): the
     * store then has a cache of {@link #blockCacheBytes()} of its own and no budget.
     *
     * @return the shared resources, or null
     */
    public SharedResources sharedResources() {
        return sharedResources;
    }

    /**
     * Which values flushes and merges turn into tombstones because they expired, or null.
     *
     * @return the expiry rule, or null
     */
    public ValueExpiry valueExpiry() {
        return valueExpiry;
    }

    /**
     * The store's clock (default {@link java.time.InstantSource#system()}): every time the
     * engine records or shows its policy comes from it — a table's creation time and the time
     * its tombstones reached a table (what tombstone-age and file-age triggers measure), the
     * time a table was last read, the "now" of each view the policy sees
     * ({@code TreeView.nowMillis()}), and the "now" {@link ValueExpiry} is asked at. It does
     * not pace anything: the policy tick ({@link #policyTickMillis()}), retries, stalls and
     * latency timers run on the JVM's own time. A test can give a clock it moves itself.
     *
     * @return the clock
     */
    public java.time.InstantSource clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "StoreConfig[memtableBytes=" + memtableBytes + ", maxImmutableMemtables=" + maxImmutableMemtables
                + ", walMode=" + walMode + ", atomicFlush=" + atomicFlush() + ", pageSize=" + pageSize + ", bloomBitsPerKey=" + bloomBitsPerKey
                + (prefixExtractor != null ? ", prefixBloom=" + prefixExtractor : "")
                + ", compression=" + compression + (bottommostCompression != null ? ", bottommostCompression="
                + bottommostCompression : "") + (levelCompression.isEmpty() ? "" : ", levelCompression=" + levelCompression)
                + ", compressionLevel=" + compressionLevel + ", lz4Acceleration=" + lz4Acceleration
                + ", leafEncoding=" + leafEncoding
                + ", restartInterval=" + restartInterval + ", parallelCompression=" + parallelCompression
                + ", blockCacheBytes=" + blockCacheBytes
                + (blockCacheAdmission != CacheAdmission.SECOND_MISS ? ", blockCacheAdmission=" + blockCacheAdmission : "")
                + (offHeap ? ", offHeap=true" : "") + ", backgroundThreads=" + backgroundThreads + ", policyTickMillis=" + policyTickMillis
                + (delayedWriteRate != DEFAULT_DELAYED_WRITE_RATE ? ", delayedWriteRate=" + delayedWriteRate : "")
                + (subcompactions != DEFAULT_SUBCOMPACTIONS ? ", subcompactions=" + subcompactions : "")
                + ", maxValueBytes=" + maxValueBytes + ", obsoleteDeleteBatchBytes=" + obsoleteDeleteBatchBytes
                + ", mergePolicy=" + (mergePolicyInstance != null ? "instance of " + mergePolicyInstance.getClass().getName()
                : mergePolicy + mergePolicyParams) + (mergePolicyNamed ? "" : " (not named: the store's)")
                + ", mergeOperator=" + mergeOperator
                + (maxSuccessiveMerges != 0 ? ", maxSuccessiveMerges=" + maxSuccessiveMerges : "")
                + ", storageIO=" + (storageIO != null ? storageIO.getClass().getSimpleName() : storageIOName + storageIOParams)
                + "]";
    }

    /** Collects values; {@link #build()} validates them all. */
    public static final class Builder {
        private long memtableBytes = DEFAULT_MEMTABLE_BYTES;
        private int maxImmutableMemtables = DEFAULT_MAX_IMMUTABLE_MEMTABLES;
        private WalSyncMode walMode = WalSyncMode.ASYNC;
        private Boolean atomicFlush;
        private int pageSize = TableOptions.DEFAULT_PAGE_SIZE;
        private int bloomBitsPerKey = TableOptions.DEFAULT_BLOOM_BITS_PER_KEY;
        private PrefixExtractor prefixExtractor;
        private Compression compression = Compression.NONE;
        private Compression bottommostCompression;
        private int compressionLevel = Compression.DEFAULT_LEVEL;
        private int lz4Acceleration = Compression.DEFAULT_LZ4_ACCELERATION;
        private java.util.SortedMap<Integer, Compression> levelCompression = new java.util.TreeMap<>();
        private LeafEncoding leafEncoding = LeafEncoding.PREFIX;
        private int restartInterval = TableOptions.DEFAULT_RESTART_INTERVAL;
        private ParallelCompression parallelCompression = ParallelCompression.AUTO;
        private long blockCacheBytes = DEFAULT_BLOCK_CACHE_BYTES;
        private CacheAdmission blockCacheAdmission = CacheAdmission.SECOND_MISS;
        private boolean offHeap;
        private int backgroundThreads = DEFAULT_BACKGROUND_THREADS;
        private long policyTickMillis = DEFAULT_POLICY_TICK_MILLIS;
        private long delayedWriteRate = DEFAULT_DELAYED_WRITE_RATE;
        private int subcompactions = DEFAULT_SUBCOMPACTIONS;
        private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
        private long manifestRewriteBytes = DEFAULT_MANIFEST_REWRITE_BYTES;
        private long obsoleteDeleteBatchBytes;
        private String mergePolicy = FALLBACK_MERGE_POLICY;
        private boolean mergePolicyNamed;
        private MergePolicy mergePolicyInstance;
        private Map<String, String> mergePolicyParams = new LinkedHashMap<>();
        private String mergeOperator;
        private int maxSuccessiveMerges;
        Map<String, FamilyOptions> families = new LinkedHashMap<>();
        private MeterRegistry meterRegistry;
        private StorageIO storageIO;
        private String storageIOName = FileChannelStorageIOFactory.NAME;
        private Map<String, String> storageIOParams = new LinkedHashMap<>();
        private StoreListener listener;
        private SharedResources sharedResources;
        private ValueExpiry valueExpiry;
        private java.time.InstantSource clock = java.time.InstantSource.system();
        /** Resolved at build from the name and raw parameters; cleared when either is set again. */
        private MergePolicyFactory mergePolicyFactory;
        private PolicyParameters mergePolicyParameters;
        private StorageIOFactory storageIOFactory;
        private PolicyParameters storageIOParameters;

        private Builder() {
        }

        /**
         * The memtable size: a full memtable is switched out and flushed (default {@link
         * #DEFAULT_MEMTABLE_BYTES}).
         *
         * @param bytes the memtable size in bytes
         * @return this builder
         */
        public Builder memtableBytes(long bytes) {
            this.memtableBytes = bytes;
            return this;
        }

        /**
         * How many full memtables may wait for their flush before writers stall (default {@link
         * #DEFAULT_MAX_IMMUTABLE_MEMTABLES}).
         *
         * @param count the number of full memtables that may wait
         * @return this builder
         */
        public Builder maxImmutableMemtables(int count) {
            this.maxImmutableMemtables = count;
            return this;
        }

        /**
         * The write-ahead log's durability mode (default {@code ASYNC}).
         *
         * @param mode when the WAL is synced, or none for no WAL
         * @return this builder
         */
        public Builder walMode(WalSyncMode mode) {
            this.walMode = mode;
            return this;
        }

        /**
         * Column families flush together, committed all or nothing (see {@link
         * StoreConfig#atomicFlush()}); unset: on in WAL mode none, off otherwise. XML: {@code
         * <wal atomicFlush="true"/>}.
         *
         * @param atomic true to flush the column families together
         * @return this builder
         */
        public Builder atomicFlush(boolean atomic) {
            this.atomicFlush = atomic;
            return this;
        }

        /**
         * The page size of new tables: a power of two from 4 KiB to 64 KiB.
         *
         * @param bytes the page size in bytes
         * @return this builder
         */
        public Builder pageSize(int bytes) {
            this.pageSize = bytes;
            return this;
        }

        /**
         * Bloom filter bits per key of new tables; 0 writes no filter.
         *
         * @param bits bits per key, 0 or more
         * @return this builder
         */
        public Builder bloomBitsPerKey(int bits) {
            this.bloomBitsPerKey = bits;
            return this;
        }

        /**
         * The prefix extractor of new tables' bloom filters (XML {@code <sstable
         * prefixBloom="fixed:N"/>}); null (the default) for none. With one, each table's filter
         * also holds the prefixes of its keys, so a prefix scan skips tables without the
         * prefix. Needs bloom filters ({@link #bloomBitsPerKey(int)} above 0).
         *
         * @param extractor the extractor, or null for none
         * @return this builder
         */
        public Builder prefixExtractor(PrefixExtractor extractor) {
            this.prefixExtractor = extractor;
            return this;
        }

        /**
         * The page codec of new tables: none (the default), lz4, zstd or snappy.
         *
         * @param codec the codec (not null)
         * @return this builder
         */
        public Builder compression(Compression codec) {
            this.compression = codec;
            return this;
        }

        /**
         * {@link #compression(Compression)} by name; an unknown name is a {@link ConfigException}.
         *
         * @param codec the codec's name, e.g. {@code lz4}
         * @return this builder
         */
        public Builder compression(String codec) {
            return compression(Compression.fromName(codec));
        }

        /**
         * The codec of tables holding the oldest data of their key range; null (the default) for
         * the level's codec.
         *
         * @param codec the bottommost codec, or null for the level's
         * @return this builder
         */
        public Builder bottommostCompression(Compression codec) {
            this.bottommostCompression = codec;
            return this;
        }

        /**
         * {@link #bottommostCompression(Compression)} by name.
         *
         * @param codec the bottommost codec's name, or null for the level's
         * @return this builder
         */
        public Builder bottommostCompression(String codec) {
            return bottommostCompression(Compression.fromName(codec));
        }

        /**
         * The codec level: zstd 1 to 22 (default 3); lz4 and snappy ignore it.
         *
         * @param level the codec level
         * @return this builder
         */
        public Builder compressionLevel(int level) {
            this.compressionLevel = level;
            return this;
        }

        /**
         * LZ4's acceleration, 1 (the default) to {@value Compression#MAX_LZ4_ACCELERATION}: LZ4's
         * fast mode skips ahead faster past bytes that do not match, compressing faster for a
         * lower ratio, the more so the higher this is. RocksDB sets it with a negative
         * {@code compression_opts.level} (-2 there is 2 here). Only lz4 reads it; the tables
         * written read the same way whatever it is. Measured on 4 KiB pages of half-compressible
         * values (docs/benchmarks.md, "LZ4's acceleration"): 2 builds a table faster for about
         * 1% more bytes.
         *
         * @param acceleration the acceleration
         * @return this builder
         */
        public Builder lz4Acceleration(int acceleration) {
            this.lz4Acceleration = acceleration;
            return this;
        }

        /**
         * The codec of new tables written to {@code level} (0 and up), overriding {@link
         * #compression(Compression)}.
         *
         * @param level the level, 0 or more
         * @param codec that level's codec
         * @return this builder
         */
        public Builder levelCompression(int level, Compression codec) {
            this.levelCompression.put(level, codec);
            return this;
        }

        /**
         * {@link #levelCompression(int, Compression)} by name.
         *
         * @param level the level, 0 or more
         * @param codec the name of that level's codec
         * @return this builder
         */
        public Builder levelCompression(int level, String codec) {
            return levelCompression(level, Compression.fromName(codec));
        }

        /**
         * How new tables encode their leaves (default {@link LeafEncoding#PREFIX}); see
         * {@link StoreConfig#leafEncoding()}.
         *
         * @param encoding the leaf encoding (not null)
         * @return this builder
         */
        public Builder leafEncoding(LeafEncoding encoding) {
            this.leafEncoding = encoding;
            return this;
        }

        /**
         * {@link #leafEncoding(LeafEncoding)} by name (prefix or plain); an unknown name is a
         * {@link ConfigException}.
         *
         * @param encoding the leaf encoding's name
         * @return this builder
         */
        public Builder leafEncoding(String encoding) {
            return leafEncoding(LeafEncoding.fromName(encoding));
        }

        /**
         * Cells between restart points of a prefix-compressed leaf, 1 to 1024 (default 16): a
         * lookup scans at most this many cells of a leaf after a binary search of its restarts;
         * a larger interval stores fewer whole keys and slots.
         *
         * @param interval cells between restart points
         * @return this builder
         */
        public Builder restartInterval(int interval) {
            this.restartInterval = interval;
            return this;
        }

        /**
         * Where a table build with a codec compresses its pages: {@link ParallelCompression#OFF
         * off}, on its own thread, as RocksDB's {@code parallel_threads} of 1 (the least CPU per
         * table: no hand-offs, no wake-ups); {@link ParallelCompression#ON on}, on a shared pool
         * of compressor threads while it goes on with the next pages (one build uses more than
         * one core); or {@link ParallelCompression#AUTO auto}, the default: on the pool while
         * this process leaves at least three quarters of a core idle, else on its own thread.
         * Measured (docs/benchmarks.md, "Parallel compression, auto"): beside a fill's writer and
         * merges the pool made the fill slower, while a lone lz4 build on the pool is 1.3x faster
         * than on its thread. The tables written are the same byte for byte.
         *
         * @param parallel where pages are compressed
         * @return this builder
         */
        public Builder parallelCompression(ParallelCompression parallel) {
            if (parallel == null) {
                throw new ConfigException("parallelCompression must be auto, true or false, not null",
                        "parallelCompression", null);
            }
            this.parallelCompression = parallel;
            return this;
        }

        /**
         * {@link ParallelCompression#ON} for true, {@link ParallelCompression#OFF} for false
         * ({@link #parallelCompression(ParallelCompression)}).
         *
         * @param parallel compress on the shared pool always (true) or never (false)
         * @return this builder
         */
        public Builder parallelCompression(boolean parallel) {
            return parallelCompression(ParallelCompression.of(parallel));
        }

        /**
         * {@link #parallelCompression(ParallelCompression)} by name: auto, true or false.
         *
         * @param parallel the setting's name
         * @return this builder
         * @throws ConfigException for another name
         */
        public Builder parallelCompression(String parallel) {
            return parallelCompression(ParallelCompression.fromName(parallel));
        }

        /**
         * The block cache's size (default {@link #DEFAULT_BLOCK_CACHE_BYTES}).
         *
         * @param bytes the cache's capacity in bytes; 0 disables the cache
         * @return this builder
         */
        public Builder blockCacheBytes(long bytes) {
            this.blockCacheBytes = bytes;
            return this;
        }

        /**
         * Which leaves a lookup that missed the store's own block cache puts into it (default
         * {@link CacheAdmission#SECOND_MISS}); see {@link StoreConfig#blockCacheAdmission()}.
         *
         * @param admission second-miss or every-miss
         * @return this builder
         */
        public Builder blockCacheAdmission(CacheAdmission admission) {
            this.blockCacheAdmission = admission;
            return this;
        }

        /**
         * {@link #blockCacheAdmission(CacheAdmission)} by name (second-miss or every-miss); an
         * unknown name is a {@link ConfigException} naming it.
         *
         * @param admission the admission's configuration name
         * @return this builder
         */
        public Builder blockCacheAdmission(String admission) {
            return blockCacheAdmission(CacheAdmission.fromName(admission));
        }

        /**
         * Keeps the store's memory off the Java heap (default false; see
         * {@link StoreConfig#offHeap()}): memtable arenas and the own block cache's page images
         * in direct memory. XML: {@code <memory offHeap="true"/>}.
         *
         * @param offHeap true for direct memory, false for the Java heap
         * @return this builder
         */
        public Builder offHeap(boolean offHeap) {
            this.offHeap = offHeap;
            return this;
        }

        /**
         * The merge threads (default {@link #DEFAULT_BACKGROUND_THREADS}).
         *
         * @param threads the number of threads running flushes and merges
         * @return this builder
         */
        public Builder backgroundThreads(int threads) {
            this.backgroundThreads = threads;
            return this;
        }

        /**
         * See {@link StoreConfig#policyTickMillis()}: 0 (off) or 10 ms to one day.
         *
         * @param millis the tick interval in milliseconds, or 0 for no tick
         * @return this builder
         */
        public Builder policyTickMillis(long millis) {
            this.policyTickMillis = millis;
            return this;
        }

        /**
         * See {@link StoreConfig#delayedWriteRate()}: from {@value StoreConfig#MIN_DELAYED_WRITE_RATE}
         * (16 KiB) to {@value StoreConfig#MAX_DELAYED_WRITE_RATE} (1 TiB) bytes a second.
         *
         * @param bytesPerSecond the rate write groups are paced to while the policy slows writes down
         * @return this builder
         */
        public Builder delayedWriteRate(long bytesPerSecond) {
            this.delayedWriteRate = bytesPerSecond;
            return this;
        }

        /**
         * See {@link StoreConfig#subcompactions()}: from 1 (never split a merge) to
         * {@value StoreConfig#MAX_SUBCOMPACTIONS}.
         *
         * @param pieces the most key-range pieces one merge is split into
         * @return this builder
         */
        public Builder subcompactions(int pieces) {
            this.subcompactions = pieces;
            return this;
        }

        /**
         * The largest value a put accepts (default {@link #DEFAULT_MAX_VALUE_BYTES}).
         *
         * @param bytes the largest value in bytes, at most {@link
         *     StoreConfig#maxValueBytesLimit(int)} of the page size
         *
         * @return this builder
         */
        public Builder maxValueBytes(int bytes) {
            this.maxValueBytes = bytes;
            return this;
        }

        /**
         * See {@link StoreConfig#obsoleteDeleteBatchBytes()}: 0 (delete at once) or more.
         *
         * @param bytes the obsolete bytes at which files are deleted together, or 0
         * @return this builder
         */
        public Builder obsoleteDeleteBatchBytes(long bytes) {
            this.obsoleteDeleteBatchBytes = bytes;
            return this;
        }

        /**
         * The manifest size at which it is rewritten as one snapshot (default {@link
         * #DEFAULT_MANIFEST_REWRITE_BYTES}).
         *
         * @param bytes the manifest size in bytes
         * @return this builder
         */
        public Builder manifestRewriteBytes(long bytes) {
            this.manifestRewriteBytes = bytes;
            return this;
        }

        /**
         * Chooses the merge policy by name, with raw parameter values (validated at build), in
         * place of an instance given before: the store creates it from its registered factory
         * each time it opens, and records it in its manifest (a later open whose configuration
         * names no policy runs it again). Without this call (or XML {@code <mergePolicy>}) the
         * store chooses: see {@link StoreConfig#mergePolicy()}.
         *
         * @param name the policy's registered name
         * @param params the policy's parameters, name to unparsed value (absent ones take their
         *     defaults)
         *
         * @return this builder
         */
        public Builder mergePolicy(String name, Map<String, String> params) {
            this.mergePolicy = name;
            this.mergePolicyNamed = true;
            this.mergePolicyParams = new LinkedHashMap<>(params == null ? Map.of() : params);
            this.mergePolicyInstance = null;
            this.mergePolicyFactory = null;
            this.mergePolicyParameters = null;
            return this;
        }

        /**
         * Uses this merge policy instance (as {@link #storageIO(StorageIO)} uses an instance),
         * in place of a policy chosen by name before; {@link #mergePolicy(String)} chooses one
         * by name again. The store's own tree (its default column family) runs it.
         *
         * <ul>
         *   <li><b>Name.</b> {@link StoreConfig#mergePolicy()} then reports the instance's class's
         *       simple name, for logs, errors and reports; its parameters are empty.</li>
         *   <li><b>Nothing on disk names it.</b> The store's manifest keeps the policy it recorded
         *       before (none for a store created with an instance), and the policy's
         *       {@linkplain MergePolicy#persistentState persistent state}: a reopen without the
         *       instance runs the policy its configuration names, else the recorded one, else
         *       {@code size-tiered}, over the tree the instance shaped, handed that state, as
         *       after any change of policy.</li>
         *   <li><b>One open store at a time.</b> An instance serves one tree: opening a store
         *       with an instance another open store of this JVM runs fails with a
         *       {@link StoreException} naming that store (a policy's in-memory state and its
         *       one-call-at-a-time contract would be shared). Once that store is closed the
         *       instance may open a store again; its in-memory state carries over.</li>
         *   <li><b>Families.</b> A column family taking the store's policy (its
         *       {@link FamilyOptions} name none) cannot share the instance: configuring or
         *       creating one is a {@link ConfigException}; give the family a policy by name.</li>
         * </ul>
         *
         * @param policy the policy instance the default family runs
         * @return this builder
         * @throws IllegalArgumentException if {@code policy} is null
         */
        public Builder mergePolicy(MergePolicy policy) {
            if (policy == null) {
                throw new IllegalArgumentException("merge policy instance must not be null; choose a policy by name"
                        + " with mergePolicy(String) instead");
            }
            String simple = policy.getClass().getSimpleName();
            this.mergePolicy = simple.isEmpty() ? policy.getClass().getName() : simple;
            this.mergePolicyNamed = true;
            this.mergePolicyParams = new LinkedHashMap<>();
            this.mergePolicyInstance = policy;
            this.mergePolicyFactory = null;
            this.mergePolicyParameters = null;
            return this;
        }

        /**
         * Chooses the merge policy by name with default parameters.
         *
         * @param name the policy's registered name
         * @return this builder
         */
        public Builder mergePolicy(String name) {
            return mergePolicy(name, Map.of());
        }

        /**
         * Configures column family {@code name} with {@code options} (XML {@code <family
         * name="...">}; see {@link StoreConfig#familyOptions()}): the family runs with them, and
         * is created when the store opens if it does not have it.
         *
         * @param name the family's name (not the default family's)
         * @param options the family's options
         * @return this builder
         * @throws IllegalArgumentException if {@code name} is invalid, is the default family's or
         *     is configured already, or {@code options} is null
         */
        public Builder family(String name, FamilyOptions options) {
            ColumnFamily.checkName(name);
            if (ColumnFamily.DEFAULT_NAME.equals(name)) {
                throw new IllegalArgumentException("the default column family takes the store's own options; "
                        + "\"" + name + "\" cannot be configured as a family");
            }
            if (options == null) {
                throw new IllegalArgumentException("options of column family \"" + name + "\" must not be null");
            }
            if (families.containsKey(name)) {
                throw new IllegalArgumentException("column family \"" + name + "\" is configured twice");
            }
            families.put(name, options);
            return this;
        }

        /**
         * The merge operator {@code merge} operands are combined with, by its registered name
         * ({@code uint64add}, {@code stringappend}, or one a jar registers); null for none.
         * An unknown name fails {@link #build()} with the names known.
         *
         * @param name the operator's registered name, or null for none
         * @return this builder
         */
        public Builder mergeOperator(String name) {
            this.mergeOperator = name;
            return this;
        }

        /**
         * Bounds the merge operands in a row a key may have in the active memtable (RocksDB's
         * {@code max_successive_merges}; XML {@code <mergeOperator name="..."
         * maxSuccessiveMerges="n"/>}): a merge that finds {@code n} already there is written as
         * the key's combined value instead (read at the write's sequence number, combined by the
         * operator). 0, the default, leaves chains unbounded; a negative bound fails
         * {@link #build()}. The operator must then give the same value whether operands are
         * combined all at once or in two steps ({@code fullMerge(fullMerge(v, a), b)} equal to
         * {@code fullMerge(v, a + b)}), as the built-in ones do.
         *
         * @param n the bound, 0 for none
         * @return this builder
         */
        public Builder maxSuccessiveMerges(int n) {
            this.maxSuccessiveMerges = n;
            return this;
        }

        /**
         * Where the store publishes its metrics; null for a registry of its own.
         *
         * @param registry the host's registry, or null
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /**
         * Uses this storage IO instance (tests wrap one to inject faults); it takes precedence
         * over a {@linkplain #storageIO(String, Map) named} implementation. Null returns to the named one.
         *
         * @param io the instance to use, or null for the named implementation
         * @return this builder
         */
        public Builder storageIO(StorageIO io) {
            this.storageIO = io;
            return this;
        }

        /**
         * Chooses the storage IO implementation by name ({@code nio}, the default, or one
         * registered by another module such as {@code native}), with raw parameter values
         * (validated at build).
         *
         * @param name the implementation's registered name
         * @param params its parameters, name to unparsed value (absent ones take their defaults)
         * @return this builder
         */
        public Builder storageIO(String name, Map<String, String> params) {
            this.storageIOName = name;
            this.storageIOParams = new LinkedHashMap<>(params == null ? Map.of() : params);
            this.storageIOFactory = null;
            this.storageIOParameters = null;
            return this;
        }

        /**
         * Chooses the storage IO implementation by name with default parameters.
         *
         * @param name the implementation's registered name
         * @return this builder
         */
        public Builder storageIO(String name) {
            return storageIO(name, Map.of());
        }

        /**
         * Opens the store with {@code resources} (block cache and memtable budget shared with
         * the other stores given the same instance; see {@link SharedResources}); its own
         * {@link #blockCacheBytes(long)} is then unused. Null (default) for none.
         *
         * @param resources the shared resources, or null for none
         * @return this builder
         */
        public Builder sharedResources(SharedResources resources) {
            this.sharedResources = resources;
            return this;
        }

        /**
         * Told of completed flushes and merges, on the background thread that did them; null for
         * none.
         *
         * @param listener the listener, or null for none
         * @return this builder
         */
        public Builder listener(StoreListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * See {@link ValueExpiry}; null (the default) for values that never expire.
         *
         * @param expiry the expiry rule, or null for none
         * @return this builder
         */
        public Builder valueExpiry(ValueExpiry expiry) {
            this.valueExpiry = expiry;
            return this;
        }

        /**
         * The store's clock (see {@link StoreConfig#clock()}; default the system clock). It is
         * read from the store's threads, so it must be thread safe; it should not go backwards.
         *
         * @param clock the clock (not null)
         * @return this builder
         * @throws IllegalArgumentException if {@code clock} is null
         */
        public Builder clock(java.time.InstantSource clock) {
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null (InstantSource.system() is the default)");
            }
            this.clock = clock;
            return this;
        }

        /**
         * Validates every value, once, and returns the configuration: scalar values, then the
         * merge operator, the merge policy and storage IO (looked up by name and their raw
         * parameters parsed into typed ones, unless this builder came from
         * {@link StoreConfig#toBuilder()} and names the same ones), then each family's options
         * applied on top of the result.
         *
         * @return the new immutable configuration
         * @throws ConfigException naming the first bad value ({@link ConfigException#setting()})
         *     and what is allowed
         */
        public StoreConfig build() {
            check(memtableBytes >= MIN_MEMTABLE_BYTES && memtableBytes <= (1L << 40), "memtableBytes",
                    memtableBytes, "from " + MIN_MEMTABLE_BYTES + " to 2^40");
            check(maxImmutableMemtables >= 1 && maxImmutableMemtables <= 64, "maxImmutableMemtables",
                    maxImmutableMemtables, "from 1 to 64");
            if (walMode == null) {
                throw new ConfigException("walMode must be one of none, async, sync", "walMode", null);
            }
            check(pageSize >= TableOptions.MIN_PAGE_SIZE && pageSize <= TableOptions.MAX_PAGE_SIZE
                    && Integer.bitCount(pageSize) == 1, "pageSize", pageSize, "a power of two from "
                    + TableOptions.MIN_PAGE_SIZE + " to " + TableOptions.MAX_PAGE_SIZE);
            check(bloomBitsPerKey >= 0 && bloomBitsPerKey <= 64, "bloomBitsPerKey", bloomBitsPerKey, "from 0 to 64");
            if (prefixExtractor != null && bloomBitsPerKey == 0) {
                throw new ConfigException("prefixBloom " + prefixExtractor + " needs bloom filters, but bloomBitsPerKey is 0",
                        "prefixExtractor", null);
            }
            checkCodec(compression, "compression");
            check(compressionLevel >= Compression.MIN_ZSTD_LEVEL && compressionLevel <= Compression.MAX_ZSTD_LEVEL,
                    "compressionLevel", compressionLevel, "from " + Compression.MIN_ZSTD_LEVEL + " to "
                            + Compression.MAX_ZSTD_LEVEL);
            check(lz4Acceleration >= 1 && lz4Acceleration <= Compression.MAX_LZ4_ACCELERATION, "lz4Acceleration",
                    lz4Acceleration, "from 1 to " + Compression.MAX_LZ4_ACCELERATION);
            for (Map.Entry<Integer, Compression> e : levelCompression.entrySet()) {
                String setting = "levelCompression." + e.getKey();
                check(e.getKey() != null && e.getKey() >= 0 && e.getKey() <= 64, "compression level index", e.getKey(),
                        "a level from 0 to 64", setting);
                if (e.getValue() == null) {
                    throw new ConfigException("the codec of level " + e.getKey() + " must be one of none, lz4, zstd,"
                            + " snappy", setting, null);
                }
                checkCodec(e.getValue(), setting);
            }
            if (bottommostCompression != null) {
                checkCodec(bottommostCompression, "bottommostCompression");
            }
            if (leafEncoding == null) {
                throw new ConfigException("leafEncoding must be one of prefix, plain", "leafEncoding", null);
            }
            check(restartInterval >= 1 && restartInterval <= TableOptions.MAX_RESTART_INTERVAL, "restartInterval",
                    restartInterval, "from 1 to " + TableOptions.MAX_RESTART_INTERVAL
                            + " (cells between the whole keys of a prefix-compressed leaf)");
            check(blockCacheBytes >= 0, "blockCacheBytes", blockCacheBytes, ">= 0");
            if (blockCacheAdmission == null) {
                throw new ConfigException("blockCacheAdmission must be one of second-miss, every-miss",
                        "blockCacheAdmission", null);
            }
            check(backgroundThreads >= 1 && backgroundThreads <= 64, "backgroundThreads", backgroundThreads,
                    "from 1 to 64");
            check(policyTickMillis == 0 || policyTickMillis >= 10 && policyTickMillis <= 86_400_000L, "policyTickMillis",
                    policyTickMillis, "0 (off) or from 10 to 86400000 (one day)");
            check(delayedWriteRate >= MIN_DELAYED_WRITE_RATE && delayedWriteRate <= MAX_DELAYED_WRITE_RATE,
                    "delayedWriteRate", delayedWriteRate, "bytes a second, from " + MIN_DELAYED_WRITE_RATE
                            + " (16KiB) to " + MAX_DELAYED_WRITE_RATE + " (1TiB)");
            check(subcompactions >= 1 && subcompactions <= MAX_SUBCOMPACTIONS, "subcompactions", subcompactions,
                    "from 1 (never split a merge) to " + MAX_SUBCOMPACTIONS + " (key-range pieces of one merge)");
            int valueLimit = maxValueBytesLimit(pageSize);
            check(maxValueBytes >= 0 && maxValueBytes <= valueLimit, "maxValueBytes", maxValueBytes, "from 0 to "
                    + valueLimit + " (a put of the largest key and value must fit one WAL record of at most "
                    + WalWriter.MAX_RECORD_SIZE + " bytes at pageSize " + pageSize + ")");
            check(manifestRewriteBytes >= 4096, "manifestRewriteBytes", manifestRewriteBytes, ">= 4096");
            check(obsoleteDeleteBatchBytes >= 0, "obsoleteDeleteBatchBytes", obsoleteDeleteBatchBytes,
                    ">= 0 (0 deletes obsolete files at once)");
            check(maxSuccessiveMerges >= 0, "maxSuccessiveMerges", maxSuccessiveMerges,
                    ">= 0 (0: merge operands in a row are not bounded)");
            if (mergeOperator != null) {
                try {
                    dev.strata.lsm.mergeop.MergeOperators.find(mergeOperator);
                } catch (ConfigException e) {
                    throw new ConfigException(e.getMessage(), "mergeOperator", e);
                }
            }
            resolveMergePolicy();
            resolveStorageIO();
            // Each family's options on top of the store's must make a valid configuration; the
            // results are kept, so the store opens each family without validating it again.
            StoreConfig base = new StoreConfig(this, Map.of());
            if (families.isEmpty()) {
                return base;
            }
            Map<String, StoreConfig> applied = new LinkedHashMap<>();
            for (Map.Entry<String, FamilyOptions> e : families.entrySet()) {
                try {
                    applied.put(e.getKey(), e.getValue().applyTo(base));
                } catch (ConfigException x) {
                    String setting = "family." + e.getKey() + (x.setting() == null ? "" : "." + x.setting());
                    throw new ConfigException("column family \"" + e.getKey() + "\": " + x.getMessage(), setting, x);
                }
            }
            return new StoreConfig(this, applied);
        }

        /** Looks the named policy up and parses its parameters, unless that is done already. */
        private void resolveMergePolicy() {
            if (mergePolicy == null) {
                throw new ConfigException("merge policy name must not be null; available: " + MergePolicies.names(),
                        "mergePolicy", null);
            }
            if (mergePolicyInstance != null || mergePolicyParameters != null) {
                return;
            }
            MergePolicyFactory f;
            try {
                f = MergePolicies.find(mergePolicy);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage(), "mergePolicy", e);
            }
            PolicyParameters params = resolve("merge policy", f.name(), f.parameters(), mergePolicyParams,
                    "mergePolicy");
            try {
                f.validate(params);
            } catch (PolicyParameterException e) {
                throw new ConfigException(e.getMessage(), "mergePolicy." + String.join(",", e.parameters()), e);
            }
            mergePolicyParameters = params;
            mergePolicyFactory = f;
        }

        /** Looks the named storage IO up and parses its parameters, unless that is done already. */
        private void resolveStorageIO() {
            if (storageIOName == null) {
                throw new ConfigException("storage IO name must not be null; available: " + StorageIOs.names(),
                        "storageIO", null);
            }
            if (storageIOParameters != null) {
                return;
            }
            StorageIOFactory f;
            try {
                f = StorageIOs.find(storageIOName);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage(), "storageIO", e);
            }
            storageIOParameters = resolve(StorageIOs.KIND, f.name(), f.parameters(), storageIOParams, "storageIO");
            storageIOFactory = f;
        }

        /**
         * {@link PolicyParameters#resolve}, its error a {@link ConfigException} about
         * {@code owner}'s setting: {@code owner.PARAM} for the parameter at fault.
         */
        private static PolicyParameters resolve(String kind, String name, List<PolicyParameter> declared,
                                                Map<String, String> raw, String owner) {
            try {
                return PolicyParameters.resolve(kind, name, declared, raw);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage(), owner + "." + faultyParameter(declared, raw), e);
            }
        }

        /**
         * The parameter {@link PolicyParameters#resolve} rejected, in its order: the first given
         * one not declared, else the first declared one whose given value does not parse. Only
         * asked after a failure.
         */
        private static String faultyParameter(List<PolicyParameter> declared, Map<String, String> raw) {
            Map<String, PolicyParameter> byName = new LinkedHashMap<>();
            declared.forEach(p -> byName.put(p.name(), p));
            for (String name : raw.keySet()) {
                if (!byName.containsKey(name)) {
                    return name;
                }
            }
            for (PolicyParameter p : declared) {
                String given = raw.get(p.name());
                if (given != null) {
                    try {
                        p.parse(given);
                    } catch (IllegalArgumentException e) {
                        return p.name();
                    }
                }
            }
            return "";
        }

        /** A codec must be set and, if it needs a native library, load it: never a silent fallback. */
        private static void checkCodec(Compression codec, String setting) {
            if (codec == null) {
                throw new ConfigException(setting + " must be one of none, lz4, zstd, snappy", setting, null);
            }
            if (codec != Compression.NONE) {
                try {
                    codec.checkAvailable();
                } catch (ConfigException e) {
                    throw new ConfigException(e.getMessage(), setting, e);
                }
            }
        }

        private static void check(boolean ok, String name, Object value, String allowed) {
            check(ok, name, value, allowed, name);
        }

        private static void check(boolean ok, String name, Object value, String allowed, String setting) {
            if (!ok) {
                throw new ConfigException("bad value " + value + " for " + name + ": expected " + allowed, setting, null);
            }
        }
    }
}
