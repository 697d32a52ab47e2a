package dev.strata.lsm;

import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;

import java.util.Arrays;

/**
 * A point-in-time reading of a store's counters. Amplification figures are computed from
 * bytes actually counted by the IO layer.
 *
 * <ul>
 *   <li>{@link #writeAmplification()} = (flush bytes + merge bytes) / flush bytes: bytes
 *       written creating components per byte flushed (WAL and manifest excluded, as in the
 *       papers' cost models; they are reported separately).</li>
 *   <li>{@link #spaceAmplification()} = {@link #tableFileBytes()} / {@link #liveLogicalBytes()}:
 *       the lengths of the table files the store holds (live components, and obsolete
 *       ones not yet deleted because a reader pins them or their deletion is pending) over
 *       an estimate of the live user data, the key and value bytes of the newest version
 *       of each live key. The estimate comes from component metadata, never from a scan
 *       (see {@code dev.strata.lsm.version.LiveDataEstimate}): it counts a maximal set of
 *       components with disjoint key ranges, largest run first, so an overwritten key is
 *       counted once however many versions of it lie in unmerged components. It is exact
 *       after a full merge and when runs hold disjoint key ranges; while runs overlap it is
 *       low, so the ratio errs high. WAL segments, the manifest and memtables are not
 *       counted on either side. The ratio is {@link Double#NaN} ("n/a" in
 *       {@link #toString()}) when it says nothing about the tree: when the estimated live
 *       data is below {@link #MIN_LIVE_BYTES_FOR_SPACE_AMPLIFICATION}, where each table's
 *       fixed pages (footer, bloom filter, index root, a partly filled leaf) dominate (a
 *       3-key store would report several hundred).</li>
 * </ul>
 *
 * <p>Immutable and thread safe. Stores make one per {@code stats()} call through
 * {@link #builder(IoStats)}, the only way to construct one; the {@code with...} methods and
 * {@link #toBuilder()} copy every figure.
 */
public final class StoreStats {
    /** Below this many estimated live bytes, {@link #spaceAmplification()} is NaN. */
    public static final long MIN_LIVE_BYTES_FOR_SPACE_AMPLIFICATION = 64 * 1024;
    /** The kind {@link #bytesWrittenByKind()} counts ingested tables under. */
    public static final String INGEST = "ingest";

    private final IoStats io;
    private final long tableFileBytes;
    private final long liveComponentBytes;
    private final double liveLogicalBytes;
    private final int[] componentsPerLevel;
    private final long flushCount;
    private final long mergeCount;
    private final long stallNanos;
    private final long memtableBytes;
    private final long lastSequence;
    private final long policyErrors;
    private final long[] liveTableFileNumbers;
    private final BlockCompactionStats blockCompaction;
    private final long tableAllocatedBytes;
    private final StallChainStats stallChains;
    private final WriteDelayStats writeDelays;
    private final long[] bytesWrittenByLevel;
    private final long liveTombstones;
    private final long[] liveBytesByLevel;
    private final long[] physicalBytesByLevel;
    private final long[] logicalBytesByLevel;
    private final long decompressions;
    private final long decompressionNanos;
    private final long blockCacheHits;
    private final long blockCacheMisses;
    private final long prefixBloomSkips;
    private final long mergesCollapsed;
    private final java.util.SortedMap<String, Long> bytesWrittenByKind;

    /** The one way in: every figure from {@code b}, checked and copied. */
    private StoreStats(Builder b) {
        if (b.io == null) {
            throw new IllegalArgumentException("store stats need the IO counters (io)");
        }
        if (b.liveBytesByLevel.length != b.physicalBytesByLevel.length) {
            throw new IllegalArgumentException("live bytes for " + b.liveBytesByLevel.length
                    + " levels but physical bytes for " + b.physicalBytesByLevel.length);
        }
        if (b.logicalBytesByLevel.length != 0 && b.logicalBytesByLevel.length != b.liveBytesByLevel.length) {
            throw new IllegalArgumentException("logical bytes for " + b.logicalBytesByLevel.length
                    + " levels but live bytes for " + b.liveBytesByLevel.length);
        }
        if (b.blockCacheHits < 0 || b.blockCacheMisses < 0) {
            throw new IllegalArgumentException("block cache hits and misses must be >= 0, were " + b.blockCacheHits
                    + " and " + b.blockCacheMisses);
        }
        this.io = b.io;
        this.tableFileBytes = b.tableFileBytes;
        this.liveComponentBytes = b.liveComponentBytes;
        this.liveLogicalBytes = b.liveLogicalBytes;
        this.componentsPerLevel = b.componentsPerLevel.clone();
        this.flushCount = b.flushCount;
        this.mergeCount = b.mergeCount;
        this.stallNanos = b.stallNanos;
        this.memtableBytes = b.memtableBytes;
        this.lastSequence = b.lastSequence;
        this.policyErrors = b.policyErrors;
        this.liveTableFileNumbers = b.liveTableFileNumbers.clone();
        this.blockCompaction = b.blockCompaction;
        this.tableAllocatedBytes = b.tableAllocatedBytes;
        this.stallChains = b.stallChains;
        this.writeDelays = b.writeDelays;
        this.bytesWrittenByLevel = b.bytesWrittenByLevel.clone();
        this.liveTombstones = b.liveTombstones;
        this.liveBytesByLevel = b.liveBytesByLevel.clone();
        this.physicalBytesByLevel = b.physicalBytesByLevel.clone();
        this.logicalBytesByLevel = b.logicalBytesByLevel.clone();
        this.decompressions = b.decompressions;
        this.decompressionNanos = b.decompressionNanos;
        this.blockCacheHits = b.blockCacheHits;
        this.blockCacheMisses = b.blockCacheMisses;
        this.prefixBloomSkips = b.prefixBloomSkips;
        this.mergesCollapsed = b.mergesCollapsed;
        this.bytesWrittenByKind = b.bytesWrittenByKind;
    }

    /**
     * A builder of stats over {@code io}; every other figure starts at 0 (empty per-level
     * arrays), but for {@link #tableAllocatedBytes()} and {@link #liveTombstones()} at -1
     * (unknown) and {@link BlockCompactionStats#NONE} / {@link StallChainStats#NONE}.
     *
     * @param io the IO counters the stats report
     * @return a new builder
     */
    public static Builder builder(IoStats io) {
        return new Builder().io(io);
    }

    /**
     * A builder holding every figure of these stats.
     *
     * @return a new builder with this object's figures
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.io = io;
        b.tableFileBytes = tableFileBytes;
        b.liveComponentBytes = liveComponentBytes;
        b.liveLogicalBytes = liveLogicalBytes;
        b.componentsPerLevel = componentsPerLevel;
        b.flushCount = flushCount;
        b.mergeCount = mergeCount;
        b.stallNanos = stallNanos;
        b.memtableBytes = memtableBytes;
        b.lastSequence = lastSequence;
        b.policyErrors = policyErrors;
        b.liveTableFileNumbers = liveTableFileNumbers;
        b.blockCompaction = blockCompaction;
        b.tableAllocatedBytes = tableAllocatedBytes;
        b.stallChains = stallChains;
        b.writeDelays = writeDelays;
        b.bytesWrittenByLevel = bytesWrittenByLevel;
        b.liveTombstones = liveTombstones;
        b.liveBytesByLevel = liveBytesByLevel;
        b.physicalBytesByLevel = physicalBytesByLevel;
        b.logicalBytesByLevel = logicalBytesByLevel;
        b.decompressions = decompressions;
        b.decompressionNanos = decompressionNanos;
        b.blockCacheHits = blockCacheHits;
        b.blockCacheMisses = blockCacheMisses;
        b.prefixBloomSkips = prefixBloomSkips;
        b.mergesCollapsed = mergesCollapsed;
        b.bytesWrittenByKind = bytesWrittenByKind;
        return b;
    }

    /**
     * Decisions of the merge policy the engine rejected (a task breaking the stability
     * invariant, naming a missing or busy component, a mode it cannot run…) and exceptions
     * the policy threw, since the store opened. Each is also logged at WARNING. A correct
     * policy keeps this at 0.
     *
     * @return the number of rejected decisions and policy exceptions
     */
    public long policyErrors() {
        return policyErrors;
    }

    /**
     * Disk bytes the table files occupy: their allocated blocks, so pages released by hole
     * punching are not counted (unlike {@link #tableFileBytes()}, their lengths); -1 when the
     * storage cannot tell (the default {@code nio} storage).
     *
     * @return the allocated bytes, or -1 when unknown
     */
    public long tableAllocatedBytes() {
        return tableAllocatedBytes;
    }

    /**
     * Table bytes written into each level since the store opened (index = level; flushes count
     * at the level the policy placed them, merges at their target level, block compactions
     * with the bytes they appended in place). Their sum is {@link #flushBytesWritten()} +
     * {@link #mergeBytesWritten()} up to the bytes of merges still running.
     *
     * @return a copy of the bytes per level
     */
    public long[] bytesWrittenByLevel() {
        return bytesWrittenByLevel.clone();
    }

    /**
     * Per level (index = level; empty if unknown), the bytes the live components reference:
     * for a table merged in place, its clean leaves of earlier versions too, not its dead pages.
     *
     * @return a copy of the bytes per level
     */
    public long[] liveBytesByLevel() {
        return liveBytesByLevel.clone();
    }

    /**
     * Per level (index = level; empty if unknown), the bytes the files of the live components
     * occupy: their length, less the pages punched out of them. Above
     * {@link #liveBytesByLevel()} by the dead pages of tables merged in place.
     *
     * @return a copy of the bytes per level
     */
    public long[] physicalBytesByLevel() {
        return physicalBytesByLevel.clone();
    }

    /**
     * Delete markers (tombstones) held by the live components, counted once per component
     * that holds one (a key deleted twice in two components counts twice); -1 if unknown.
     * Memtables are not counted.
     *
     * @return the tombstone count, or -1 when unknown
     */
    public long liveTombstones() {
        return liveTombstones;
    }

    /**
     * Compaction chains of the stall episodes since open (vLSM's quantities).
     *
     * @return the stall-chain figures ({@link StallChainStats#NONE} when not reported)
     */
    public StallChainStats stallChains() {
        return stallChains;
    }

    /**
     * The write slowdown's delays since open: the write groups paced to the delayed write rate
     * while the merge policy answered SLOW_DOWN, and the delays computed for them (the time
     * they slept is part of {@link #stallNanos()}).
     *
     * @return the delay figures ({@link WriteDelayStats#NONE} when not reported)
     */
    public WriteDelayStats writeDelays() {
        return writeDelays;
    }

    /**
     * What block compactions did to their child tables since open.
     *
     * @return the block-compaction figures ({@link BlockCompactionStats#NONE} when not reported)
     */
    public BlockCompactionStats blockCompaction() {
        return blockCompaction;
    }

    /**
     * Numbers of the table files the live components are in, ascending (a copy).
     *
     * @return a copy of the file numbers
     */
    public long[] liveTableFileNumbers() {
        return liveTableFileNumbers.clone();
    }

    /**
     * Raw IO counters by purpose.
     *
     * @return the IO counters
     */
    public IoStats io() {
        return io;
    }

    /**
     * Bytes written for {@code purpose}.
     *
     * @param purpose the purpose asked about
     * @return the bytes written through files opened for {@code purpose}
     */
    public long bytesWritten(IoPurpose purpose) {
        return io.bytesWritten(purpose);
    }

    /**
     * Bytes written to the write-ahead log.
     *
     * @return the WAL's bytes written
     */
    public long walBytesWritten() {
        return io.bytesWritten(IoPurpose.WAL);
    }

    /**
     * Bytes written by flushes.
     *
     * @return the flushes' bytes written
     */
    public long flushBytesWritten() {
        return io.bytesWritten(IoPurpose.FLUSH);
    }

    /**
     * Bytes written by merges.
     *
     * @return the merges' bytes written
     */
    public long mergeBytesWritten() {
        return io.bytesWritten(IoPurpose.MERGE);
    }

    /**
     * Bytes written to the manifest and CURRENT.
     *
     * @return the manifest's and CURRENT's bytes written
     */
    public long manifestBytesWritten() {
        return io.bytesWritten(IoPurpose.MANIFEST);
    }

    /**
     * (flush + merge bytes) / flush bytes; 0 before the first flush.
     *
     * @return the write amplification, 1 or more once something was flushed
     */
    public double writeAmplification() {
        long flushed = flushBytesWritten();
        return flushed == 0 ? 0 : (double) (flushed + mergeBytesWritten()) / flushed;
    }

    /**
     * {@link #tableFileBytes()} / {@link #liveLogicalBytes()}; {@link Double#NaN} when the
     * estimated live data is under {@link #MIN_LIVE_BYTES_FOR_SPACE_AMPLIFICATION} (an
     * empty or tiny store), where the ratio measures fixed per-table overhead, not the tree.
     *
     * @return the space amplification, or NaN for a store too small to measure
     */
    public double spaceAmplification() {
        return liveLogicalBytes < MIN_LIVE_BYTES_FOR_SPACE_AMPLIFICATION ? Double.NaN
                : tableFileBytes / liveLogicalBytes;
    }

    /**
     * Lengths of the table files the store holds: those of live components, and those of
     * obsolete components not deleted yet (pinned by a reader, or deletion pending).
     *
     * @return the sum of the table files' lengths in bytes
     */
    public long tableFileBytes() {
        return tableFileBytes;
    }

    /**
     * Bytes of the live components, each from its first page to the end of its footer.
     *
     * @return the live components' bytes
     */
    public long liveComponentBytes() {
        return liveComponentBytes;
    }

    /**
     * Estimated user bytes (key + value) of the newest version of each live key, from
     * component metadata (see the class comment); 0 when there are no components.
     *
     * @return the estimated live user bytes
     */
    public double liveLogicalBytes() {
        return liveLogicalBytes;
    }

    /**
     * Components in each level, level 0 first.
     *
     * @return a copy of the component counts
     */
    public int[] componentsPerLevel() {
        return componentsPerLevel.clone();
    }

    /**
     * Components in the whole tree.
     *
     * @return the number of components
     */
    public int componentCount() {
        return Arrays.stream(componentsPerLevel).sum();
    }

    /**
     * Flushes completed since the store opened.
     *
     * @return the number of flushes
     */
    public long flushCount() {
        return flushCount;
    }

    /**
     * Merges completed since the store opened.
     *
     * @return the number of merges
     */
    public long mergeCount() {
        return mergeCount;
    }

    /**
     * Total time writers spent waiting for flushes, merges or the policy, in nanoseconds.
     *
     * @return the stall time in nanoseconds
     */
    public long stallNanos() {
        return stallNanos;
    }

    /**
     * Bytes held by the active and immutable memtables.
     *
     * @return the memtables' bytes
     */
    public long memtableBytes() {
        return memtableBytes;
    }

    /**
     * The sequence number of the last write made visible.
     *
     * @return the last visible sequence number
     */
    public long lastSequence() {
        return lastSequence;
    }


    /**
     * Tables that prefix scans ({@link LsmStore#scanPrefix(byte[])}) left unread since open
     * because their prefix bloom said no key has the prefix (tables whose key bounds exclude
     * it are not counted).
     *
     * @return the number of tables skipped
     */
    public long prefixBloomSkips() {
        return prefixBloomSkips;
    }

    /**
     * Merge operands written since open as the key's combined value instead, because the
     * active memtable already held {@link StoreConfig#maxSuccessiveMerges()} operands in a row
     * for the key (0 without the bound).
     *
     * @return the number of merges written as values
     */
    public long mergesCollapsed() {
        return mergesCollapsed;
    }




    /**
     * Table bytes written since the store opened, by what wrote them, in alphabetical order of
     * kind: {@code flush} (flushed memtables; {@link #flushBytesWritten()} counts the same
     * tables at the IO layer), {@value #INGEST} (ingested tables), and merges under the kind
     * their policy labelled them with ({@code MergeTask.kind()}; e.g. Spooky's
     * {@code full-preemptive}, {@code dividing}, {@code partitioned}, {@code intra-l0}), or
     * {@code merge} when it did not. Kinds that wrote nothing are absent. Empty when not
     * reported. Unmodifiable.
     *
     * @return the bytes written by kind
     */
    public java.util.SortedMap<String, Long> bytesWrittenByKind() {
        return bytesWrittenByKind;
    }

    /**
     * Page lookups of this store the block cache answered, since it opened (0 when not reported).
     *
     * @return the number of cache hits
     */
    public long blockCacheHits() {
        return blockCacheHits;
    }

    /**
     * Page lookups of this store the block cache did not answer, since it opened (0 when not
     * reported).
     *
     * @return the number of cache misses
     */
    public long blockCacheMisses() {
        return blockCacheMisses;
    }

    /**
     * Per level, the bytes the live components' pages take uncompressed (index = level; empty
     * when not reported). Equal to {@link #liveBytesByLevel()} for tables without a codec.
     *
     * @return a copy of the uncompressed bytes per level
     */
    public long[] logicalBytesByLevel() {
        return logicalBytesByLevel.clone();
    }

    /**
     * Per level, the bytes the live components take stored (compressed pages at their stored size):
     * {@link #liveBytesByLevel()}.
     *
     * @return a copy of the stored bytes per level
     */
    public long[] storedBytesByLevel() {
        return liveBytesByLevel.clone();
    }

    /**
     * Uncompressed over stored bytes of the live components: 1.0 without compression (or
     * when nothing is stored), above 1 as compressed tables save space.
     *
     * @return the compression ratio
     */
    public double compressionRatio() {
        long logical = Arrays.stream(logicalBytesByLevel).sum();
        long stored = Arrays.stream(liveBytesByLevel).sum();
        return logical == 0 || stored == 0 ? 1.0 : (double) logical / stored;
    }

    /**
     * {@link #compressionRatio()} of one level (1.0 when it holds nothing).
     *
     * @param level the level, 0 or more
     * @return the level's compression ratio
     */
    public double compressionRatio(int level) {
        if (level >= logicalBytesByLevel.length || level >= liveBytesByLevel.length || liveBytesByLevel[level] == 0) {
            return 1.0;
        }
        return (double) logicalBytesByLevel[level] / liveBytesByLevel[level];
    }

    /**
     * Pages of compressed tables decompressed since the store opened (block cache misses on them).
     *
     * @return the number of decompressed pages
     */
    public long decompressions() {
        return decompressions;
    }

    /**
     * Time spent decompressing those pages, in nanoseconds.
     *
     * @return the decompression time in nanoseconds
     */
    public long decompressionNanos() {
        return decompressionNanos;
    }

    @Override
    public String toString() {
        double sa = spaceAmplification();
        return String.format("StoreStats[flushes=%d, merges=%d, components=%s, WA=%.3f, SA=%s, tables=%d, live~%.0f, "
                        + "stall=%.1fms, wal=%d, flush=%d, merge=%d, manifest=%d]", flushCount, mergeCount,
                Arrays.toString(componentsPerLevel), writeAmplification(),
                Double.isNaN(sa) ? "n/a" : String.format("%.3f", sa), tableFileBytes, liveLogicalBytes,
                stallNanos / 1e6, walBytesWritten(), flushBytesWritten(), mergeBytesWritten(), manifestBytesWritten())
                + (tableAllocatedBytes >= 0 ? "[allocated=" + tableAllocatedBytes + "]" : "")
                + (blockCompaction.equals(BlockCompactionStats.NONE) ? "" : blockCompaction.toString())
                + (compressionRatio() == 1.0 && decompressions == 0 ? "" : String.format(
                        "[compression ratio=%.3f, decompressions=%d in %.1fms]", compressionRatio(), decompressions,
                        decompressionNanos / 1e6));
    }

    /**
     * Collects the figures of a {@link StoreStats}; {@link #build()} checks them (per-level
     * arrays of one length, cache counts not negative) and copies the arrays. Not thread safe.
     */
    public static final class Builder {
        private IoStats io;
        private long tableFileBytes;
        private long liveComponentBytes;
        private double liveLogicalBytes;
        private int[] componentsPerLevel = new int[0];
        private long flushCount;
        private long mergeCount;
        private long stallNanos;
        private long memtableBytes;
        private long lastSequence;
        private long policyErrors;
        private long[] liveTableFileNumbers = new long[0];
        private BlockCompactionStats blockCompaction = BlockCompactionStats.NONE;
        private long tableAllocatedBytes = -1;
        private StallChainStats stallChains = StallChainStats.NONE;
        private WriteDelayStats writeDelays = WriteDelayStats.NONE;
        private long[] bytesWrittenByLevel = new long[0];
        private long liveTombstones = -1;
        private long[] liveBytesByLevel = new long[0];
        private long[] physicalBytesByLevel = new long[0];
        private long[] logicalBytesByLevel = new long[0];
        private java.util.SortedMap<String, Long> bytesWrittenByKind = java.util.Collections.emptySortedMap();
        private long decompressions;
        private long decompressionNanos;
        private long blockCacheHits;
        private long blockCacheMisses;
        private long prefixBloomSkips;
        private long mergesCollapsed;

        private Builder() {
        }

        /**
         * IO counters by purpose ({@link StoreStats#io()}).
         *
         * @param io the IO counters (not null)
         * @return this builder
         */
        public Builder io(IoStats io) {
            this.io = io;
            return this;
        }

        /**
         * See {@link StoreStats#tableFileBytes()}.
         *
         * @param bytes the table files' lengths in bytes
         * @return this builder
         */
        public Builder tableFileBytes(long bytes) {
            this.tableFileBytes = bytes;
            return this;
        }

        /**
         * See {@link StoreStats#liveComponentBytes()}.
         *
         * @param bytes the live components' bytes
         * @return this builder
         */
        public Builder liveComponentBytes(long bytes) {
            this.liveComponentBytes = bytes;
            return this;
        }

        /**
         * See {@link StoreStats#liveLogicalBytes()}.
         *
         * @param bytes the estimated live user bytes
         * @return this builder
         */
        public Builder liveLogicalBytes(double bytes) {
            this.liveLogicalBytes = bytes;
            return this;
        }

        /**
         * See {@link StoreStats#componentsPerLevel()}.
         *
         * @param counts the components per level, level 0 first (copied)
         * @return this builder
         */
        public Builder componentsPerLevel(int[] counts) {
            this.componentsPerLevel = counts.clone();
            return this;
        }

        /**
         * See {@link StoreStats#flushCount()}.
         *
         * @param count the number of flushes
         * @return this builder
         */
        public Builder flushCount(long count) {
            this.flushCount = count;
            return this;
        }

        /**
         * See {@link StoreStats#mergeCount()}.
         *
         * @param count the number of merges
         * @return this builder
         */
        public Builder mergeCount(long count) {
            this.mergeCount = count;
            return this;
        }

        /**
         * See {@link StoreStats#stallNanos()}.
         *
         * @param nanos the stall time in nanoseconds
         * @return this builder
         */
        public Builder stallNanos(long nanos) {
            this.stallNanos = nanos;
            return this;
        }

        /**
         * See {@link StoreStats#memtableBytes()}.
         *
         * @param bytes the memtables' bytes
         * @return this builder
         */
        public Builder memtableBytes(long bytes) {
            this.memtableBytes = bytes;
            return this;
        }

        /**
         * See {@link StoreStats#lastSequence()}.
         *
         * @param sequence the last visible sequence number
         * @return this builder
         */
        public Builder lastSequence(long sequence) {
            this.lastSequence = sequence;
            return this;
        }

        /**
         * See {@link StoreStats#policyErrors()}.
         *
         * @param errors the number of policy errors
         * @return this builder
         */
        public Builder policyErrors(long errors) {
            this.policyErrors = errors;
            return this;
        }

        /**
         * See {@link StoreStats#liveTableFileNumbers()} (ascending).
         *
         * @param numbers the live table file numbers, ascending (copied)
         * @return this builder
         */
        public Builder liveTableFileNumbers(long[] numbers) {
            this.liveTableFileNumbers = numbers.clone();
            return this;
        }

        /**
         * See {@link StoreStats#blockCompaction()}.
         *
         * @param stats the block-compaction figures
         * @return this builder
         */
        public Builder blockCompaction(BlockCompactionStats stats) {
            this.blockCompaction = java.util.Objects.requireNonNull(stats, "blockCompaction");
            return this;
        }

        /**
         * See {@link StoreStats#tableAllocatedBytes()}; -1 if unknown.
         *
         * @param bytes the allocated bytes, or -1
         * @return this builder
         */
        public Builder tableAllocatedBytes(long bytes) {
            this.tableAllocatedBytes = bytes;
            return this;
        }

        /**
         * See {@link StoreStats#stallChains()}.
         *
         * @param stats the stall-chain figures
         * @return this builder
         */
        public Builder stallChains(StallChainStats stats) {
            this.stallChains = java.util.Objects.requireNonNull(stats, "stallChains");
            return this;
        }

        /**
         * See {@link StoreStats#writeDelays()}.
         *
         * @param stats the write slowdown's delay figures
         * @return this builder
         */
        public Builder writeDelays(WriteDelayStats stats) {
            this.writeDelays = java.util.Objects.requireNonNull(stats, "writeDelays");
            return this;
        }

        /**
         * See {@link StoreStats#bytesWrittenByLevel()} (index = level).
         *
         * @param bytes the bytes written per level (copied)
         * @return this builder
         */
        public Builder bytesWrittenByLevel(long[] bytes) {
            this.bytesWrittenByLevel = bytes.clone();
            return this;
        }

        /**
         * See {@link StoreStats#liveTombstones()}; -1 if unknown.
         *
         * @param count the tombstone count, or -1
         * @return this builder
         */
        public Builder liveTombstones(long count) {
            this.liveTombstones = count;
            return this;
        }

        /**
         * Per level (index = level, both arrays as long): the bytes the live components
         * reference ({@link StoreStats#liveBytesByLevel()}) and those their files occupy
         * ({@link StoreStats#physicalBytesByLevel()}).
         *
         * @param live the referenced bytes per level (copied)
         * @param physical the occupied bytes per level (copied)
         * @return this builder
         */
        public Builder bytesByLevel(long[] live, long[] physical) {
            this.liveBytesByLevel = live.clone();
            this.physicalBytesByLevel = physical.clone();
            return this;
        }

        /**
         * What page compression did: per level the live pages' uncompressed bytes (as long as
         * {@link #bytesByLevel}'s arrays, or empty), pages decompressed and the time it took
         * ({@link StoreStats#logicalBytesByLevel()}, {@link StoreStats#decompressions()},
         * {@link StoreStats#decompressionNanos()}).
         *
         * @param logicalBytesByLevel per level, the live pages' uncompressed bytes (copied)
         * @param decompressions pages decompressed since the store opened
         * @param decompressionNanos the time those decompressions took, in nanoseconds
         * @return this builder
         */
        public Builder compression(long[] logicalBytesByLevel, long decompressions, long decompressionNanos) {
            this.logicalBytesByLevel = logicalBytesByLevel.clone();
            this.decompressions = decompressions;
            this.decompressionNanos = decompressionNanos;
            return this;
        }

        /**
         * See {@link StoreStats#blockCacheHits()} and {@link StoreStats#blockCacheMisses()};
         * neither negative.
         *
         * @param hits lookups answered from the cache
         * @param misses lookups read from a file
         * @return this builder
         */
        public Builder blockCache(long hits, long misses) {
            this.blockCacheHits = hits;
            this.blockCacheMisses = misses;
            return this;
        }

        /**
         * See {@link StoreStats#prefixBloomSkips()}.
         *
         * @param skips the number of tables skipped
         * @return this builder
         */
        public Builder prefixBloomSkips(long skips) {
            this.prefixBloomSkips = skips;
            return this;
        }

        /**
         * See {@link StoreStats#mergesCollapsed()}.
         *
         * @param collapsed the number of merges written as values
         * @return this builder
         */
        public Builder mergesCollapsed(long collapsed) {
            this.mergesCollapsed = collapsed;
            return this;
        }

        /**
         * See {@link StoreStats#bytesWrittenByKind()}; every kind named and every count &gt;= 0.
         *
         * @param byKind bytes written by kind of write
         * @return this builder
         */
        public Builder bytesWrittenByKind(java.util.Map<String, Long> byKind) {
            java.util.TreeMap<String, Long> copy = new java.util.TreeMap<>();
            for (java.util.Map.Entry<String, Long> e : byKind.entrySet()) {
                if (e.getKey() == null || e.getValue() == null || e.getValue() < 0) {
                    throw new IllegalArgumentException("bytes written by kind need a kind and a count >= 0, got "
                            + e.getKey() + "=" + e.getValue());
                }
                copy.put(e.getKey(), e.getValue());
            }
            this.bytesWrittenByKind = java.util.Collections.unmodifiableSortedMap(copy);
            return this;
        }

        /**
         * The stats.
         *
         * @return a new immutable stats object
         * @throws IllegalArgumentException if the IO counters are missing, the per-level arrays
         *     differ in length, or a cache count is negative
         */
        public StoreStats build() {
            return new StoreStats(this);
        }
    }
}
