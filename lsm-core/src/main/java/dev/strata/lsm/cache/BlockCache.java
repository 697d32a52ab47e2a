package dev.strata.lsm.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

/**
 * The page cache shared by all tables of a store: verified page images keyed by
 * {@code (file number, page number)}, bounded by bytes (Caffeine, W-TinyLFU). Because
 * the key is the page's position in its file, pages that a later version of a table
 * reuses stay cached across versions. Thread safe.
 *
 * <p>Caffeine's maintenance (replaying reads into the eviction policy, evicting) runs on
 * the thread whose read or write triggered it, not in {@code ForkJoinPool.commonPool()}:
 * a page lookup is frequent and cheap, and handing the replay to another thread cost more
 * (a wake-up per filled read buffer, and a pool thread spinning for work) than doing it.
 */
public final class BlockCache {
    /** Per-entry bookkeeping charged on top of the page bytes. */
    private static final int ENTRY_OVERHEAD = 64;

    /** Cache key; explicit equals and hashCode keep the lookup path free of indirection. */
    private static final class PageKey {
        final long fileNumber;
        final long pageNumber;

        PageKey(long fileNumber, long pageNumber) {
            this.fileNumber = fileNumber;
            this.pageNumber = pageNumber;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PageKey k && k.pageNumber == pageNumber && k.fileNumber == fileNumber;
        }

        @Override
        public int hashCode() {
            long h = (fileNumber * 0x9E3779B97F4A7C15L) ^ pageNumber;
            return (int) (h ^ (h >>> 32));
        }
    }

    private final Cache<PageKey, byte[]> cache;
    private final long capacityBytes;

    private BlockCache(long capacityBytes) {
        this.capacityBytes = capacityBytes;
        this.cache = capacityBytes <= 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher((PageKey k, byte[] v) -> v.length + ENTRY_OVERHEAD)
                .executor(Runnable::run)
                .recordStats()
                .build();
    }

    /** A cache holding at most {@code capacityBytes} of pages; 0 disables caching. */
    public static BlockCache create(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("block cache capacity must be >= 0, got " + capacityBytes);
        }
        return new BlockCache(capacityBytes);
    }

    /** A cache that never holds anything. */
    public static BlockCache disabled() {
        return new BlockCache(0);
    }

    /** Configured capacity in bytes. */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** The cached page, or null. The returned array must not be modified. */
    public byte[] get(long fileNumber, long pageNumber) {
        return cache == null ? null : cache.getIfPresent(new PageKey(fileNumber, pageNumber));
    }

    /** Caches a verified page image; the array must not be modified afterwards. */
    public void put(long fileNumber, long pageNumber, byte[] page) {
        if (cache != null) {
            cache.put(new PageKey(fileNumber, pageNumber), page);
        }
    }

    /** Drops every page of a file (when the file is deleted). */
    public void invalidateFile(long fileNumber) {
        if (cache != null) {
            cache.asMap().keySet().removeIf(k -> k.fileNumber == fileNumber);
        }
    }

    /** Drops everything. */
    public void clear() {
        if (cache != null) {
            cache.invalidateAll();
        }
    }

    /** Bytes currently charged (page bytes plus per-entry overhead). */
    public long weightedSize() {
        return cache == null ? 0 : cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** Hit and miss statistics. */
    public CacheStats stats() {
        return cache == null ? CacheStats.empty() : cache.stats();
    }

    /** The underlying Caffeine cache for metrics binding, or null when disabled. */
    public Cache<?, ?> caffeine() {
        return cache;
    }
}
