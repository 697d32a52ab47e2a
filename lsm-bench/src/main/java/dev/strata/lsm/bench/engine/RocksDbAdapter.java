package dev.strata.lsm.bench.engine;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.designspace.DesignSpaceConfig;
import dev.strata.lsm.policy.designspace.DesignSpacePresets;
import dev.strata.lsm.policy.designspace.Layout;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.EnvOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileWriter;
import org.rocksdb.StatsLevel;
import org.rocksdb.CompressionOptions;
import org.rocksdb.Statistics;
import org.rocksdb.ReadOptions;
import org.rocksdb.Slice;
import org.rocksdb.TickerType;
import org.rocksdb.UInt64AddOperator;
import org.rocksdb.WriteOptions;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RocksDB (rocksdbjni) as a {@link BenchEngine}: leveled compaction with RocksDB's own
 * defaults, except for what must match Strata's configuration to compare like with like —
 * memtable size and count, an LRU block cache of Strata's block cache size, the page (block)
 * size, bloom filters of the same density, the background thread count, and the same page
 * codecs (compression, bottommost compression, and LZ4's acceleration as RocksDB's negative
 * {@code compression_opts.level}).
 * When Strata runs a leveled {@code design-space} preset (such as {@code one-leveling}),
 * RocksDB's tree takes that preset's shape too — target file size, size ratio (level
 * multiplier), level-0 trigger and dynamic level sizing — so the comparison is policy for
 * policy; level 1's base size is RocksDB's rule of thumb, the level-0 trigger times the
 * memtable size (256 MiB at the default 64 MiB memtable, RocksDB's own default).
 */
final class RocksDbAdapter implements BenchEngine {
    static final String NAME = "rocksdb";
    private static final int MAX_LEVELS = 7;

    static {
        RocksDB.loadLibrary();
    }

    private final Statistics statistics;
    private final LRUCache cache;
    private final BloomFilter bloom;
    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final String description;
    private final UInt64AddOperator mergeOperator;
    /** Compression options for LZ4's acceleration (null at acceleration 1, RocksDB's default). */
    private final CompressionOptions compressionOptions;
    private final CompressionOptions bottommostCompressionOptions;
    /** N of the fixed prefix extractor, 0 without one. */
    private final int prefixLength;

    RocksDbAdapter(Path dir, StoreConfig config) {
        statistics = new Statistics();
        // Tickers only: the detailed timers cost a clock read per operation.
        statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        cache = new LRUCache(config.blockCacheBytes());
        bloom = config.bloomBitsPerKey() > 0 ? new BloomFilter(config.bloomBitsPerKey(), false) : null;
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(cache)
                .setBlockSize(config.pageSize());
        if (bloom != null) {
            table.setFilterPolicy(bloom);
        }
        int writeBuffers = config.maxImmutableMemtables() + 1;
        options = new Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(config.memtableBytes())
                .setMaxWriteBufferNumber(writeBuffers)
                .setMaxBackgroundJobs(config.backgroundThreads())
                .setCompressionType(rocksCodec(config.compression()))
                .setStatistics(statistics)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setTableFormatConfig(table);
        // The counter workloads merge with uint64add, as Strata's adapter does.
        mergeOperator = new UInt64AddOperator();
        options.setMergeOperator(mergeOperator);
        // Strata's <sstable prefixBloom="fixed:N"/> becomes RocksDB's fixed prefix extractor,
        // whose prefixes its bloom filters then hold (whole keys too, as Strata's do).
        prefixLength = config.prefixExtractor() == null ? 0 : config.prefixExtractor().length();
        if (prefixLength > 0) {
            options.useFixedLengthPrefixExtractor(prefixLength);
        }
        if (config.bottommostCompression() != null) {
            options.setBottommostCompressionType(rocksCodec(config.bottommostCompression()));
        }
        if (config.lz4Acceleration() > 1) {
            // RocksDB's lz4 takes its acceleration from a negative level. The level applies to
            // whatever codec compression_opts serves, so the bottommost codec gets options of its
            // own at the default level (a zstd bottommost level must not become -N).
            compressionOptions = new CompressionOptions().setLevel(-config.lz4Acceleration());
            options.setCompressionOptions(compressionOptions);
            if (config.bottommostCompression() != null) {
                bottommostCompressionOptions = new CompressionOptions().setEnabled(true);
                options.setBottommostCompressionOptions(bottommostCompressionOptions);
            } else {
                bottommostCompressionOptions = null;
            }
        } else {
            compressionOptions = null;
            bottommostCompressionOptions = null;
        }
        String shape = matchLeveledPreset(options, config);
        writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            close(false);
            throw new IllegalStateException("cannot open rocksdb in " + dir + ": " + e.getMessage(), e);
        }
        description = String.format("rocksdb %s leveled (%s), write_buffer_size=%d, max_write_buffer_number=%d, "
                        + "LRU block cache %d bytes, block_size=%d, bloom %d bits/key, max_background_jobs=%d, "
                        + "compression %s%s%s%s", RocksDB.rocksdbVersion(), shape, config.memtableBytes(), writeBuffers,
                config.blockCacheBytes(), config.pageSize(), config.bloomBitsPerKey(), config.backgroundThreads(),
                rocksCodec(config.compression()), config.lz4Acceleration() > 1
                        ? " (compression_opts.level " + -config.lz4Acceleration() + ")" : "",
                config.bottommostCompression() == null ? ""
                        : ", bottommost " + rocksCodec(config.bottommostCompression()),
                prefixLength > 0 ? ", fixed prefix extractor " + prefixLength + " bytes" : "");
    }

    /**
     * Gives RocksDB the tree shape of Strata's leveled design-space preset, if that is its
     * policy; returns how the shape was chosen, for the description.
     */
    /** RocksDB's codec for Strata's: the same algorithm (none, LZ4, Zstandard, Snappy). */
    static CompressionType rocksCodec(dev.strata.lsm.Compression c) {
        return switch (c) {
            case NONE -> CompressionType.NO_COMPRESSION;
            case LZ4 -> CompressionType.LZ4_COMPRESSION;
            case ZSTD -> CompressionType.ZSTD_COMPRESSION;
            case SNAPPY -> CompressionType.SNAPPY_COMPRESSION;
        };
    }

    static String matchLeveledPreset(Options options, StoreConfig config) {
        String policy = config.mergePolicy();
        if (!policy.equals("design-space") && !DesignSpacePresets.allPresetNames().contains(policy)) {
            return "defaults";
        }
        DesignSpaceConfig ds = DesignSpacePresets.config(policy, config.mergePolicyParameters());
        Layout.Kind layout = ds.layout().kind();
        if (layout != Layout.Kind.LEVELING && layout != Layout.Kind.ONE_LEVELING) {
            return "defaults";
        }
        long fileBytes = ds.targetFileBytes() > 0 ? ds.targetFileBytes() : config.memtableBytes();
        long levelBase = (long) ds.level1RunTrigger() * config.memtableBytes();
        options.setTargetFileSizeBase(fileBytes)
                .setMaxBytesForLevelMultiplier(ds.sizeRatio())
                .setLevel0FileNumCompactionTrigger(ds.level1RunTrigger())
                .setLevelCompactionDynamicLevelBytes(ds.dynamicLevelBytes())
                .setMaxBytesForLevelBase(levelBase);
        return String.format("shaped as Strata's %s: target_file_size_base=%d, max_bytes_for_level_multiplier=%d, "
                        + "level0_file_num_compaction_trigger=%d, level_compaction_dynamic_level_bytes=%b, "
                        + "max_bytes_for_level_base=%d", policy, fileBytes, ds.sizeRatio(), ds.level1RunTrigger(),
                ds.dynamicLevelBytes(), levelBase);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String durability() {
        return "WAL on, WriteOptions.sync=false: each write is written to the OS, no fsync";
    }

    @Override
    public void put(byte[] key, byte[] value) {
        try {
            db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb put failed: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb get failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(byte[] key) {
        try {
            db.delete(writeOptions, key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb delete failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean hasDeleteRange() {
        return true;
    }

    @Override
    public void deleteRange(byte[] fromInclusive, byte[] toExclusive) {
        try {
            db.deleteRange(writeOptions, fromInclusive, toExclusive);
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb deleteRange failed: " + e.getMessage(), e);
        }
    }

    @Override
    public int scan(byte[] from, int count) {
        int n = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(from); n < count && it.isValid(); it.next()) {
                if (it.key() == null || it.value() == null) {
                    throw new IllegalStateException("rocksdb iterator returned a null entry");
                }
                n++;
            }
            it.status();
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb scan failed: " + e.getMessage(), e);
        }
        return n;
    }

    @Override
    public boolean hasReadExtensions() {
        return true;
    }

    @Override
    public int scanReverse(byte[] from, int count) {
        int n = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekForPrev(from); n < count && it.isValid(); it.prev()) {
                if (it.key() == null || it.value() == null) {
                    throw new IllegalStateException("rocksdb iterator returned a null entry");
                }
                n++;
            }
            it.status();
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb reverse scan failed: " + e.getMessage(), e);
        }
        return n;
    }

    @Override
    public void mergeAdd(byte[] key, long delta) {
        try {
            db.merge(writeOptions, key, java.nio.ByteBuffer.allocate(8).putLong(delta).array());
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb merge failed: " + e.getMessage(), e);
        }
    }

    @Override
    public int scanPrefix(byte[] prefix) {
        // With the extractor and a prefix of its length, a prefix seek (prefix_same_as_start)
        // lets the prefix blooms skip files; otherwise a total-order seek. Either way an upper
        // bound ends the scan at the prefix's end, as Strata's scanPrefix does.
        byte[] upper = null;
        for (int i = prefix.length - 1; i >= 0 && upper == null; i--) {
            if (prefix[i] != (byte) 0xff) {
                upper = java.util.Arrays.copyOf(prefix, i + 1);
                upper[i]++;
            }
        }
        int n = 0;
        try (Slice bound = upper == null ? null : new Slice(upper);
             ReadOptions ro = new ReadOptions()) {
            if (bound != null) {
                ro.setIterateUpperBound(bound);
            }
            if (prefixLength > 0 && prefix.length >= prefixLength) {
                ro.setPrefixSameAsStart(true);
            } else {
                ro.setTotalOrderSeek(true);
            }
            try (RocksIterator it = db.newIterator(ro)) {
                for (it.seek(prefix); it.isValid(); it.next()) {
                    if (it.key() == null || it.value() == null) {
                        throw new IllegalStateException("rocksdb iterator returned a null entry");
                    }
                    n++;
                }
                it.status();
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb prefix scan failed: " + e.getMessage(), e);
        }
        return n;
    }

    @Override
    public void settle() {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb flush failed: " + e.getMessage(), e);
        }
        // RocksJava has no WaitForCompact: poll the properties that say whether work remains.
        BackgroundWork.awaitIdle(NAME, () -> property("rocksdb.compaction-pending") != 0
                || property("rocksdb.num-running-compactions") != 0
                || property("rocksdb.num-running-flushes") != 0
                || property("rocksdb.mem-table-flush-pending") != 0);
    }

    /**
     * {@code SstFileWriter} with the store's options (block size, bloom filter, no compression),
     * then {@code ingestExternalFile} with {@code move_files=true}: each file is hard-linked into
     * the store and its entries take a global sequence number kept in the manifest
     * ({@code write_global_seqno=false}, the default), so no byte is rewritten.
     */
    @Override
    public BulkIngest bulkIngest() {
        return new BulkIngest() {
            @Override
            public TableFile create(Path file) {
                if (java.nio.file.Files.exists(file)) {
                    throw new IllegalArgumentException("external table file " + file + " exists");
                }
                EnvOptions env = new EnvOptions();
                SstFileWriter w = new SstFileWriter(env, options);
                try {
                    w.open(file.toString());
                } catch (RocksDBException e) {
                    w.close();
                    env.close();
                    throw new IllegalStateException("rocksdb SstFileWriter.open " + file + ": " + e.getMessage(), e);
                }
                return new TableFile() {
                    @Override
                    public void put(byte[] key, byte[] value) {
                        try {
                            w.put(key, value);
                        } catch (RocksDBException e) {
                            throw new IllegalStateException("rocksdb SstFileWriter.put: " + e.getMessage(), e);
                        }
                    }

                    @Override
                    public long finish() {
                        try {
                            w.finish();
                            return java.nio.file.Files.size(file);
                        } catch (RocksDBException e) {
                            throw new IllegalStateException("rocksdb SstFileWriter.finish: " + e.getMessage(), e);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }

                    @Override
                    public void close() {
                        w.close();
                        env.close();
                    }
                };
            }

            @Override
            public void ingest(List<Path> files, boolean fullVerification) {
                // Either way RocksDB's default check: verify_checksums_before_ingest=false (RocksJava
                // has no setter for it) reads each file's properties and key range, no data block.
                try (IngestExternalFileOptions o = new IngestExternalFileOptions().setMoveFiles(true)) {
                    db.ingestExternalFile(files.stream().map(Path::toString).toList(), o);
                } catch (RocksDBException e) {
                    throw new IllegalStateException("rocksdb ingestExternalFile failed: " + e.getMessage(), e);
                }
            }

            @Override
            public String describe() {
                try (IngestExternalFileOptions o = new IngestExternalFileOptions().setMoveFiles(true)) {
                    return "SstFileWriter, then ingestExternalFile(move_files=" + o.moveFiles() + ", write_global_seqno="
                            + o.writeGlobalSeqno() + ", allow_global_seqno=" + o.allowGlobalSeqNo()
                            + "): each file hard-linked into the store with a global sequence number";
                }
            }
        };
    }

    private long property(String name) {
        try {
            return db.getLongProperty(name);
        } catch (RocksDBException e) {
            throw new IllegalStateException("rocksdb property " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Map<String, Object> ownCounters() {
        long flushed = statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES);
        long compacted = statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES);
        Map<String, Object> m = new LinkedHashMap<>();
        // Same definition as Strata's StoreStats: (flush + merge bytes) / flush bytes.
        m.put("writeAmplification", flushed == 0 ? 0.0 : (double) (flushed + compacted) / flushed);
        m.put("stallMillis", statistics.getTickerCount(TickerType.STALL_MICROS) / 1e3);
        m.put("walBytesWritten", statistics.getTickerCount(TickerType.WAL_FILE_BYTES));
        m.put("flushBytesWritten", flushed);
        m.put("compactionBytesWritten", compacted);
        m.put("compactionBytesRead", statistics.getTickerCount(TickerType.COMPACT_READ_BYTES));
        m.put("estimateLiveDataBytes", property("rocksdb.estimate-live-data-size"));
        m.put("liveSstBytes", property("rocksdb.live-sst-files-size"));
        int[] files = new int[MAX_LEVELS];
        for (int level = 0; level < MAX_LEVELS; level++) {
            // A string property, not an integer one: getLongProperty answers NotFound.
            try {
                files[level] = Integer.parseInt(db.getProperty("rocksdb.num-files-at-level" + level).trim());
            } catch (RocksDBException | NumberFormatException e) {
                throw new IllegalStateException("rocksdb property rocksdb.num-files-at-level" + level + ": " + e, e);
            }
        }
        m.put("filesPerLevel", files);
        return m;
    }

    @Override
    public void close() {
        close(true);
    }

    private void close(boolean opened) {
        if (opened) {
            db.close();
        }
        writeOptions.close();
        options.close();
        mergeOperator.close();
        if (compressionOptions != null) {
            compressionOptions.close();
        }
        if (bottommostCompressionOptions != null) {
            bottommostCompressionOptions.close();
        }
        if (bloom != null) {
            bloom.close();
        }
        cache.close();
        statistics.close();
    }
}
