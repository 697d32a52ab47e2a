package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.ParallelCompression;
import dev.strata.lsm.Compression;
import dev.strata.lsm.PrefixExtractor;
import dev.strata.lsm.StoreConfig;

/**
 * Shape of an SSTable: page size, bloom filter density and the bloom filter's reserve.
 *
 * @param pageSize bytes per page, a power of two from 4 KiB to 64 KiB
 * @param bloomBitsPerKey bloom filter bits per distinct user key, 0 (no filter) to 64
 * @param bloomReserve extra capacity of the bloom filter as a fraction of the table's
 *     distinct keys (0 to 4): a filter built for {@code n} keys is sized for
 *     {@code n·(1 + bloomReserve)}, so a later version of the table that adds keys in place
 *     (block merging) can add them to the same filter; once the keys added exceed the
 *     reserve, the filter is rebuilt. BlockDB reserves 0.4 at middle levels and 0.1 at the
 *     last level; 0 (the default) for tables that are never merged in place.
 * @param compression the page codec of new tables ({@link Compression#NONE} by default);
 *     a table written with a codec is laid out packed with a page map (format 3,
 *     docs/format.md) and is never merged in place
 * @param compressionLevel the codec's level: used by zstd (1 to 22, default 3); lz4 and
 *     snappy have none and ignore it
 * @param leafEncoding how new tables encode their leaf cells ({@link LeafEncoding#PREFIX} by
 *     default); an in-place merge keeps its base table's encoding whatever this says
 * @param restartInterval with {@link LeafEncoding#PREFIX}, every how many cells a leaf stores
 *     a whole key (a restart point): 1 to {@link #MAX_RESTART_INTERVAL}, default 16. A lookup
 *     scans at most this many cells after a binary search of the restarts; a larger interval
 *     stores fewer key bytes and slots
 * @param prefixExtractor null (the default), or the extractor whose prefix of each key (in
 *     its domain) the bloom filter also holds, recorded in the footer so that a prefix scan
 *     can skip the table ({@link PrefixExtractor}); ignored without a bloom filter
 * @param parallelCompression with a codec, where pages are compressed: on the building thread
 *     ({@link ParallelCompression#OFF}, as RocksDB's {@code CompressionOptions::parallel_threads}
 *     of 1: no hand-offs, the least CPU per table), on a shared pool of compressor threads while
 *     the build goes on ({@link ParallelCompression#ON}: one build uses more than one core), or
 *     on the pool while the process leaves a core idle ({@link ParallelCompression#AUTO}, the
 *     default). The file written is the same whichever it is
 * @param lz4Acceleration LZ4's acceleration, 1 (the default) to {@value Compression#MAX_LZ4_ACCELERATION}
 *     ({@link StoreConfig.Builder#lz4Acceleration(int)}); only lz4 reads it
 */
public record TableOptions(int pageSize, int bloomBitsPerKey, double bloomReserve, Compression compression,
                           int compressionLevel, LeafEncoding leafEncoding, int restartInterval,
                           PrefixExtractor prefixExtractor, ParallelCompression parallelCompression,
                           int lz4Acceleration) {
    public static final int MIN_PAGE_SIZE = 4 * 1024;
    public static final int MAX_PAGE_SIZE = 64 * 1024;
    public static final int DEFAULT_PAGE_SIZE = 4 * 1024;
    public static final int DEFAULT_BLOOM_BITS_PER_KEY = 10;
    /** Largest value accepted; larger values do not fit a Java array with headroom. */
    public static final int MAX_VALUE_SIZE = 1 << 30;

    /** Largest bloom reserve accepted. */
    public static final double MAX_BLOOM_RESERVE = 4.0;
    /** Restart interval of prefix-compressed leaves unless configured (RocksDB's default too). */
    public static final int DEFAULT_RESTART_INTERVAL = 16;
    /** Largest restart interval accepted: bounds the cells a lookup scans in a leaf. */
    public static final int MAX_RESTART_INTERVAL = 1024;

    /** Options without a bloom reserve. */
    public TableOptions(int pageSize, int bloomBitsPerKey) {
        this(pageSize, bloomBitsPerKey, 0);
    }

    /** Options without compression. */
    public TableOptions(int pageSize, int bloomBitsPerKey, double bloomReserve) {
        this(pageSize, bloomBitsPerKey, bloomReserve, Compression.NONE, Compression.DEFAULT_LEVEL);
    }

    /** Options with prefix-compressed leaves at the default restart interval and no prefix extractor. */
    public TableOptions(int pageSize, int bloomBitsPerKey, double bloomReserve, Compression compression,
                        int compressionLevel) {
        this(pageSize, bloomBitsPerKey, bloomReserve, compression, compressionLevel, LeafEncoding.PREFIX,
                DEFAULT_RESTART_INTERVAL, null, ParallelCompression.AUTO, Compression.DEFAULT_LZ4_ACCELERATION);
    }

    public TableOptions {
        if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two from "
                    + MIN_PAGE_SIZE + " to " + MAX_PAGE_SIZE + " bytes, got " + pageSize);
        }
        if (bloomBitsPerKey < 0 || bloomBitsPerKey > 64) {
            throw new IllegalArgumentException("bloom bits per key must be 0 to 64, got " + bloomBitsPerKey);
        }
        if (!(bloomReserve >= 0 && bloomReserve <= MAX_BLOOM_RESERVE)) {
            throw new IllegalArgumentException("bloom reserve must be a fraction from 0 to " + MAX_BLOOM_RESERVE
                    + " of the table's keys, got " + bloomReserve);
        }
        if (compression == null) {
            throw new IllegalArgumentException("compression must not be null (use Compression.NONE)");
        }
        if (compressionLevel < Compression.MIN_ZSTD_LEVEL || compressionLevel > Compression.MAX_ZSTD_LEVEL) {
            throw new IllegalArgumentException("compression level must be " + Compression.MIN_ZSTD_LEVEL + " to "
                    + Compression.MAX_ZSTD_LEVEL + ", got " + compressionLevel);
        }
        if (leafEncoding == null) {
            throw new IllegalArgumentException("leaf encoding must not be null (use LeafEncoding.PREFIX)");
        }
        checkRestartInterval(restartInterval);
        if (parallelCompression == null) {
            throw new IllegalArgumentException("parallel compression must not be null (use ParallelCompression.AUTO)");
        }
        if (lz4Acceleration < 1 || lz4Acceleration > Compression.MAX_LZ4_ACCELERATION) {
            throw new IllegalArgumentException("lz4 acceleration must be 1 to " + Compression.MAX_LZ4_ACCELERATION
                    + ", got " + lz4Acceleration);
        }
    }

    /**
     * Checks a restart interval.
     *
     * @throws IllegalArgumentException naming the interval and the accepted range
     */
    public static void checkRestartInterval(int restartInterval) {
        if (restartInterval < 1 || restartInterval > MAX_RESTART_INTERVAL) {
            throw new IllegalArgumentException("restart interval must be 1 to " + MAX_RESTART_INTERVAL
                    + " cells, got " + restartInterval);
        }
    }

    /**
     * Loads {@code codec}'s native library (once per JVM) and checks that it round-trips a page
     * ({@link Compression#checkAvailable()}).
     *
     * @throws dev.strata.lsm.ConfigException naming the codec if its native part cannot be loaded or fails
     */
    public static void checkCodecAvailable(Compression codec) {
        PageCodec.of(codec, Compression.DEFAULT_LEVEL, Compression.DEFAULT_LZ4_ACCELERATION);
    }

    /** These options with page codec {@code codec} at {@code level} (see {@link #compressionLevel()}). */
    public TableOptions withCompression(Compression codec, int level) {
        return new TableOptions(pageSize, bloomBitsPerKey, bloomReserve, codec, level, leafEncoding,
                restartInterval, prefixExtractor, parallelCompression, lz4Acceleration);
    }

    /** These options with leaf encoding {@code encoding} and restart interval {@code interval}. */
    public TableOptions withLeafEncoding(LeafEncoding encoding, int interval) {
        return new TableOptions(pageSize, bloomBitsPerKey, bloomReserve, compression, compressionLevel, encoding,
                interval, prefixExtractor, parallelCompression, lz4Acceleration);
    }

    /** These options with page codec {@code codec} at the default level. */
    public TableOptions withCompression(Compression codec) {
        return withCompression(codec, compressionLevel);
    }

    /** These options with a bloom reserve of {@code reserve} (a fraction of the keys). */
    public TableOptions withBloomReserve(double reserve) {
        return new TableOptions(pageSize, bloomBitsPerKey, reserve, compression, compressionLevel, leafEncoding,
                restartInterval, prefixExtractor, parallelCompression, lz4Acceleration);
    }

    /** These options with prefix extractor {@code extractor} (null for none). */
    public TableOptions withPrefixExtractor(PrefixExtractor extractor) {
        return new TableOptions(pageSize, bloomBitsPerKey, bloomReserve, compression, compressionLevel, leafEncoding,
                restartInterval, extractor, parallelCompression, lz4Acceleration);
    }

    /** These options with pages compressed on the shared compressor pool ({@code parallel}) or on the building thread. */
    public TableOptions withParallelCompression(boolean parallel) {
        return withParallelCompression(ParallelCompression.of(parallel));
    }

    /** These options with pages compressed where {@code parallel} says. */
    public TableOptions withParallelCompression(ParallelCompression parallel) {
        return new TableOptions(pageSize, bloomBitsPerKey, bloomReserve, compression, compressionLevel, leafEncoding,
                restartInterval, prefixExtractor, parallel, lz4Acceleration);
    }

    /** These options with LZ4 acceleration {@code acceleration} (1 to {@value Compression#MAX_LZ4_ACCELERATION}). */
    public TableOptions withLz4Acceleration(int acceleration) {
        return new TableOptions(pageSize, bloomBitsPerKey, bloomReserve, compression, compressionLevel, leafEncoding,
                restartInterval, prefixExtractor, parallelCompression, acceleration);
    }

    /** The name tables built with these options record for their prefix bloom: "" without one. */
    public String prefixBloomName() {
        return prefixExtractor == null || bloomBitsPerKey == 0 ? "" : prefixExtractor.name();
    }

    /** Keys a filter built for {@code keys} distinct keys is sized for: {@code floor(keys·(1 + reserve))}. */
    public long bloomCapacity(long keys) {
        return (long) Math.floor(keys * (1 + bloomReserve));
    }

    /**
     * The options of a new table of a store opened with {@code config}, with its default codec
     * ({@link StoreConfig#compression()}): page size, bloom density, codec and level, leaf
     * encoding, prefix extractor, whether pages are compressed in parallel and LZ4's acceleration.
     */
    public static TableOptions of(StoreConfig config) {
        return new TableOptions(config.pageSize(), config.bloomBitsPerKey())
                .withCompression(config.compression(), config.compressionLevel())
                .withLeafEncoding(config.leafEncoding(), config.restartInterval())
                .withPrefixExtractor(config.prefixExtractor())
                .withParallelCompression(config.parallelCompression())
                .withLz4Acceleration(config.lz4Acceleration());
    }

    /**
     * The options of a new table written to {@code level}: as {@link #of(StoreConfig)} with the
     * codec {@link StoreConfig#compressionFor(int, boolean)} picks (the bottommost one when
     * {@code bottommost} and one is set, else the level's own, else the default).
     */
    public static TableOptions of(StoreConfig config, int level, boolean bottommost) {
        return of(config).withCompression(config.compressionFor(level, bottommost), config.compressionLevel());
    }

    /** 4 KiB pages, 10 bloom bits per key, no reserve. */
    public static TableOptions defaults() {
        return new TableOptions(DEFAULT_PAGE_SIZE, DEFAULT_BLOOM_BITS_PER_KEY);
    }

    /**
     * Largest user key accepted: {@code pageSize / 4 - 32} bytes (992 for 4 KiB pages). It
     * guarantees that every interior page, whose lowest level stores two keys per child,
     * holds at least two children.
     */
    public int maxKeySize() {
        return maxKeySize(pageSize);
    }

    /** {@link #maxKeySize()} for a given page size. */
    public static int maxKeySize(int pageSize) {
        return pageSize / 4 - 32;
    }
}
