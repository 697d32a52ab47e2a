package dev.strata.lsm.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import dev.strata.lsm.CacheAdmission;

/**
 * The page cache shared by all tables of a store: verified page images, or {@link Decoded}
 * forms of them, keyed by {@code (file number, page number)} and bounded by bytes (Caffeine,
 * W-TinyLFU). Because the key is the page's position in its file, pages that a later
 * version of a table reuses stay cached across versions. A page is cached in one form
 * only: its readers always ask for the same one. Thread safe.
 *
 * <p>Page images are held in arrays that the cache reuses when it evicts (see
 * {@link PageSlots}): {@link #copyPage} copies an image out into the caller's array and
 * {@link #putPage} copies one in, so neither a hit nor a miss allocates a page, and the
 * caller never holds an array the cache may refill.
 *
 * <p>A lookup that missed {@linkplain #offerPage offers} the leaf it read; the cache's
 * {@link CacheAdmission} decides whether it goes in: on its second miss by default, so that a
 * leaf read once, as most are when the tables are many times the cache, costs no insert and no
 * eviction. {@link #putPage} and {@link #putDecoded} always cache.
 *
 * <p>One cache may serve several stores ({@link dev.strata.lsm.SharedResources}): each takes a
 * {@linkplain #forStore() view} whose keys carry its own store id, and counts its own hits,
 * misses and decompressions.
 *
 * <p>Caffeine's maintenance (replaying reads into the eviction policy, evicting) runs on
 * the thread whose read or write triggered it, not in {@code ForkJoinPool.commonPool()}:
 * a page lookup is frequent and cheap, and handing the replay to another thread cost more
 * (a wake-up per filled read buffer, and a pool thread spinning for work) than doing it.
 */
public final class BlockCache {
    /** Per-entry bookkeeping charged on top of the page bytes. */
    private static final int ENTRY_OVERHEAD = 64;

    /**
     * A value derived from a verified page (say, the page image with a search index over
     * it), cached under the page's key in place of the bare image. Implementations must
     * be immutable.
     */
    public interface Decoded {
        /** Bytes to charge against the capacity: the page image plus what was derived from it. */
        int weightBytes();
    }

    /** Cache key; explicit equals and hashCode keep the lookup path free of indirection. */
    private static final class PageKey {
        /** The store's view ({@link #forStore}), 0 for a cache of one store: stores number their files alike. */
        final long storeId;
        final long fileNumber;
        final long pageNumber;

        PageKey(long storeId, long fileNumber, long pageNumber) {
            this.storeId = storeId;
            this.fileNumber = fileNumber;
            this.pageNumber = pageNumber;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PageKey k && k.pageNumber == pageNumber && k.fileNumber == fileNumber
                    && k.storeId == storeId;
        }

        @Override
        public int hashCode() {
            long h = ((fileNumber + storeId * 0xC2B2AE3D27D4EB4FL) * 0x9E3779B97F4A7C15L) ^ pageNumber;
            return (int) (h ^ (h >>> 32));
        }

        /** A 64-bit hash of the key whose low bits are well mixed (for {@link SecondMissAdmission}). */
        long mix() {
            long h = ((fileNumber + storeId * 0xC2B2AE3D27D4EB4FL) * 0x9E3779B97F4A7C15L) ^ pageNumber;
            h *= 0xBF58476D1CE4E5B9L;
            return h ^ (h >>> 31);
        }
    }

    /** Store ids handed out by {@link #forStore}: never reused, so a closed store's pages never answer a new one. */
    private static final java.util.concurrent.atomic.AtomicLong STORE_IDS = new java.util.concurrent.atomic.AtomicLong();

    /** Values are page images ({@link PageSlots.Handle}) or {@link Decoded} pages. */
    private final Cache<PageKey, Object> cache;
    private final PageSlots slots;
    /** Pages of compressed tables decompressed on their way into the cache (or to a reader), and the time it took. */
    private final java.util.concurrent.atomic.LongAdder decompressions;
    private final java.util.concurrent.atomic.LongAdder decompressionNanos;
    private final long capacityBytes;
    /**
     * Set in the high bits of every file number this view keys pages by: each column family
     * numbers its table files from 1 in its own directory, so the families' views of one
     * cache must not share keys. 0 for the default family (keys as before families).
     */
    private final long namespaceBits;
    /** Keys of this view's store: 0, or an id from {@link #forStore}. */
    private final long storeId;
    /** Lookups of this view's store (its namespaces share them) answered and not. */
    private final java.util.concurrent.atomic.LongAdder hits;
    private final java.util.concurrent.atomic.LongAdder misses;
    /** Bytes of pages table readers hold beside the cache ({@link #tryPin}); one counter for every view. */
    private final java.util.concurrent.atomic.AtomicLong pinnedBytes;
    /**
     * What gives back the pin budget of each file's table readers ({@link #releaseWhenInvalidated}),
     * keyed as the file's pages are (page number -1), run by {@link #invalidateFile}. Shared by every view.
     */
    private final java.util.concurrent.ConcurrentHashMap<PageKey, java.util.List<Runnable>> pinReleases;
    /** Which missed page images {@link #offerPage} caches; null: every one. Shared by every view. */
    private final SecondMissAdmission admission;
    /** The admission this cache was created with (also for a disabled cache, which admits nothing). */
    private final CacheAdmission admissionKind;
    /** The page size the admission window is counted in (the default page; larger pages only make the window longer). */
    private static final int ADMISSION_PAGE_BYTES = 4096;

    /** Bits of a file number below the namespace: file numbers stay under 2^40. */
    private static final int NAMESPACE_SHIFT = 40;

    private BlockCache(long capacityBytes, boolean offHeap, CacheAdmission admission) {
        this.capacityBytes = capacityBytes;
        this.slots = new PageSlots(offHeap);
        this.decompressions = new java.util.concurrent.atomic.LongAdder();
        this.decompressionNanos = new java.util.concurrent.atomic.LongAdder();
        this.namespaceBits = 0;
        this.storeId = 0;
        this.hits = new java.util.concurrent.atomic.LongAdder();
        this.misses = new java.util.concurrent.atomic.LongAdder();
        this.pinnedBytes = new java.util.concurrent.atomic.AtomicLong();
        this.pinReleases = new java.util.concurrent.ConcurrentHashMap<>();
        this.admissionKind = admission;
        this.admission = capacityBytes <= 0 || admission != CacheAdmission.SECOND_MISS
                ? null : new SecondMissAdmission(Math.max(1, capacityBytes / ADMISSION_PAGE_BYTES));
        this.cache = capacityBytes <= 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher((PageKey k, Object v) -> weight(v) + ENTRY_OVERHEAD)
                .executor(Runnable::run)
                // Runs on the thread that removed the mapping (the executor above), once per
                // mapping, whatever the cause: eviction, replacement or invalidation.
                .removalListener((PageKey k, Object v, RemovalCause cause) -> {
                    if (v instanceof PageSlots.Handle h) {
                        slots.release(h);
                    }
                })
                .recordStats()
                .build();
    }

    private BlockCache(BlockCache shared, int namespace, long storeId, boolean ownCounters) {
        this.capacityBytes = shared.capacityBytes;
        this.cache = shared.cache;
        this.slots = shared.slots;
        this.namespaceBits = (long) namespace << NAMESPACE_SHIFT;
        this.storeId = storeId;
        this.decompressions = ownCounters ? new java.util.concurrent.atomic.LongAdder() : shared.decompressions;
        this.decompressionNanos = ownCounters ? new java.util.concurrent.atomic.LongAdder() : shared.decompressionNanos;
        this.hits = ownCounters ? new java.util.concurrent.atomic.LongAdder() : shared.hits;
        this.misses = ownCounters ? new java.util.concurrent.atomic.LongAdder() : shared.misses;
        this.pinnedBytes = shared.pinnedBytes;
        this.pinReleases = shared.pinReleases;
        this.admission = shared.admission;
        this.admissionKind = shared.admissionKind;
    }

    /**
     * A view of this cache for one more store sharing it ({@link dev.strata.lsm.SharedResources}):
     * its keys carry an id no other view has, or ever will (stores number their table files
     * alike, from 1, so two stores' pages must not meet under one key), and it counts its own
     * hits, misses and decompressions; capacity and contents are shared. A closed store's
     * pages are not dropped at once: nothing can look them up again, and eviction takes them.
     */
    public BlockCache forStore() {
        return new BlockCache(this, 0, STORE_IDS.incrementAndGet(), true);
    }

    /**
     * A view of this cache whose keys never meet those of another namespace (a column
     * family's tables, numbered in their own directory): capacity, contents and counters are
     * shared; namespace 0 is this cache's own keys.
     */
    public BlockCache namespace(int namespace) {
        if (namespace < 0 || namespace >= 1 << 23) {
            throw new IllegalArgumentException("cache namespace " + namespace + " outside 0..2^23-1");
        }
        return namespace == 0 && namespaceBits == 0 ? this : new BlockCache(this, namespace, storeId, false);
    }

    private PageKey key(long fileNumber, long pageNumber) {
        return new PageKey(storeId, fileNumber | namespaceBits, pageNumber);
    }

    private static int weight(Object value) {
        return value instanceof PageSlots.Handle h ? h.slot().size() : ((Decoded) value).weightBytes();
    }

    /**
     * A cache holding at most {@code capacityBytes} of pages, on the Java heap, caching every
     * page offered ({@link CacheAdmission#EVERY_MISS}); 0 disables caching.
     */
    public static BlockCache create(long capacityBytes) {
        return create(capacityBytes, false);
    }

    /**
     * A cache holding at most {@code capacityBytes} of pages; 0 disables caching. With
     * {@code offHeap}, page images are kept in direct memory (pooled direct buffers, freed once
     * the cache is unreachable); {@link Decoded} pages stay on the heap either way.
     */
    public static BlockCache create(long capacityBytes, boolean offHeap) {
        return create(capacityBytes, offHeap, CacheAdmission.EVERY_MISS);
    }

    /**
     * A cache holding at most {@code capacityBytes} of pages (0 disables caching), in direct
     * memory with {@code offHeap}, caching the leaf images lookups {@linkplain #offerPage offer}
     * as {@code admission} says.
     */
    public static BlockCache create(long capacityBytes, boolean offHeap, CacheAdmission admission) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("block cache capacity must be >= 0, got " + capacityBytes);
        }
        return new BlockCache(capacityBytes, offHeap, java.util.Objects.requireNonNull(admission, "admission"));
    }

    /** How offered leaf images are admitted: the admission the cache was created with. */
    public CacheAdmission admission() {
        return admissionKind;
    }

    /** Whether page images are kept in direct memory. */
    public boolean offHeap() {
        return slots.offHeap();
    }

    /** A cache that never holds anything. */
    public static BlockCache disabled() {
        return new BlockCache(0, false, CacheAdmission.EVERY_MISS);
    }

    /** Configured capacity in bytes. */
    public long capacityBytes() {
        return capacityBytes;
    }

    /**
     * Reserves {@code bytes} of the pin budget, half the capacity, shared by every view of
     * this cache: a table reader holding its level-1 interior pages itself (so that a lookup
     * asks the cache for its leaf only, as RocksDB's table readers hold their index blocks)
     * asks here first, and reads through the cache when the budget is spent. Pinned bytes
     * are held on the heap beside the cache, not inside its capacity. Thread-safe.
     *
     * @return whether the bytes were reserved (never for a disabled cache)
     */
    public boolean tryPin(long bytes) {
        if (cache == null) {
            return false;
        }
        long budget = capacityBytes / 2;
        while (true) {
            long now = pinnedBytes.get();
            if (now + bytes > budget) {
                return false;
            }
            if (pinnedBytes.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /**
     * Whether the pin budget has room for {@code bytes} now, without reserving them (a reader
     * checks before it reads a page it would then {@link #tryPin}).
     *
     * @param bytes the most the page would be charged
     * @return false for a disabled cache or a budget without that room
     */
    public boolean pinBudgetHasRoom(long bytes) {
        return cache != null && pinnedBytes.get() + bytes <= capacityBytes / 2;
    }

    /**
     * Runs {@code release} when file {@code fileNumber} is {@linkplain #invalidateFile
     * invalidated} (deleted): a table reader of the file gives back its pin budget then, not
     * when the collector finds the reader unreachable, which for a reader that lived long
     * enough to be old can be much later (merges of a fill left the budget spent by readers
     * of deleted files). {@code release} must be idempotent.
     *
     * @param fileNumber the reader's file
     * @param release what returns the reader's reserved bytes
     */
    public void releaseWhenInvalidated(long fileNumber, Runnable release) {
        if (cache != null) {
            pinReleases.computeIfAbsent(key(fileNumber, -1), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(release);
        }
    }

    /** Returns bytes reserved by {@link #tryPin} (a reader that is no longer reachable). */
    public void unpin(long bytes) {
        pinnedBytes.addAndGet(-bytes);
    }

    /** Bytes reserved by {@link #tryPin} and not yet returned, over every view of this cache. */
    public long pinnedBytes() {
        return pinnedBytes.get();
    }

    /** Whether this cache holds anything at all (false for a capacity of 0). */
    public boolean enabled() {
        return cache != null;
    }

    /**
     * Copies the cached image of the page into {@code dest} and returns true, or returns
     * false when the page is not cached as an image of {@code dest.length} bytes ({@code dest}
     * may then have been overwritten).
     */
    public boolean copyPage(long fileNumber, long pageNumber, byte[] dest) {
        return lookup(fileNumber, pageNumber) instanceof PageSlots.Handle h
                && h.slot().size() == dest.length && PageSlots.copy(h, dest);
    }

    /** Caches a copy of a verified page image; the caller keeps {@code page} and may reuse it. */
    public void putPage(long fileNumber, long pageNumber, byte[] page) {
        if (cache != null) {
            cache.put(key(fileNumber, pageNumber), slots.fill(page));
        }
    }

    /**
     * Offers a verified leaf image that a lookup just missed: cached as {@link #putPage} does
     * when the cache's admission lets it in (always for {@link CacheAdmission#EVERY_MISS}; for
     * {@link CacheAdmission#SECOND_MISS} if the page missed before within the admission
     * window, else it is only remembered). The caller keeps {@code page} and may reuse it.
     *
     * @return whether the page was cached
     */
    public boolean offerPage(long fileNumber, long pageNumber, byte[] page) {
        if (cache == null) {
            return false;
        }
        PageKey key = key(fileNumber, pageNumber);
        if (admission != null && !admission.admit(key.mix())) {
            return false;
        }
        cache.put(key, slots.fill(page));
        return true;
    }

    /** The cached decoded page if it is a {@code type}, or null. */
    public <T extends Decoded> T getDecoded(long fileNumber, long pageNumber, Class<T> type) {
        Object value = lookup(fileNumber, pageNumber);
        return type.isInstance(value) ? type.cast(value) : null;
    }

    /** Caches a decoded page in place of its image. */
    public void putDecoded(long fileNumber, long pageNumber, Decoded page) {
        store(fileNumber, pageNumber, page);
    }

    private Object lookup(long fileNumber, long pageNumber) {
        if (cache == null) {
            return null;
        }
        Object value = cache.getIfPresent(key(fileNumber, pageNumber));
        (value == null ? misses : hits).increment();
        return value;
    }

    /** Page lookups of this view's store the cache answered (a disabled cache answers none and counts none). */
    public long hits() {
        return hits.sum();
    }

    /** Page lookups of this view's store the cache did not answer. */
    public long misses() {
        return misses.sum();
    }

    private void store(long fileNumber, long pageNumber, Object value) {
        if (cache != null) {
            cache.put(key(fileNumber, pageNumber), value);
        }
    }

    /**
     * Drops pages {@code 0 .. pages - 1} of a file (when the file is deleted; the caller
     * counts the pages the file can hold): each is looked up, so the cost is the file's pages,
     * not the cache's entries (a scan of the whole cache per deleted file took most of a
     * merge-heavy load's background CPU). The file's readers give back their pin budget
     * ({@link #releaseWhenInvalidated}).
     */
    public void invalidateFile(long fileNumber, long pages) {
        if (cache == null) {
            return;
        }
        java.util.List<Runnable> releases = pinReleases.remove(key(fileNumber, -1));
        if (releases != null) {
            releases.forEach(Runnable::run);
        }
        for (long page = 0; page < pages; page++) {
            cache.invalidate(key(fileNumber, page));
        }
    }

    /**
     * Counts one page decompression that took {@code nanos}: a page of a compressed table
     * read from its file (the cache holds pages decompressed, so a hit costs none).
     */
    public void recordDecompression(long nanos) {
        decompressions.increment();
        decompressionNanos.add(nanos);
    }

    /** Pages decompressed so far by readers using this cache. */
    public long decompressions() {
        return decompressions.sum();
    }

    /** Nanoseconds spent decompressing those pages. */
    public long decompressionNanos() {
        return decompressionNanos.sum();
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

    /** Page arrays evicted and waiting for reuse (for tests). */
    int pooledPages() {
        return slots.freeSlots();
    }

    /** The underlying Caffeine cache for metrics binding, or null when disabled. */
    public Cache<?, ?> caffeine() {
        return cache;
    }
}
