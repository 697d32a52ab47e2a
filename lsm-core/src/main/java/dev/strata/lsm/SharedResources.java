package dev.strata.lsm;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.engine.BackgroundPool;
import dev.strata.lsm.engine.MemtableBudget;
import dev.strata.lsm.engine.SharedResourcesAccess;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory shared by any number of stores of one JVM, as RocksDB shares a {@code Cache} and a
 * {@code WriteBufferManager} between databases: one block cache for all of them (each store
 * keys its pages apart), and optionally one memtable budget (when their active memtables
 * together hold more than 7/8 of the budget, or all their memtables the budget with at least
 * half of it active, the largest active one among them is switched out and flushed, and writes
 * wait while they hold more than the budget). Give it to each store with
 * {@link StoreConfig.Builder#sharedResources(SharedResources)}; a store opened with it ignores
 * its own {@link StoreConfig#blockCacheBytes()}.
 *
 * <p>With {@link Builder#backgroundThreads(int)}, also one background thread pool: the stores run their flushes, merges and policy decisions on its
 * threads instead of starting their own, and ignore their own
 * {@link StoreConfig#backgroundThreads()}. Flushes and merges have separate threads (a
 * quarter of them flush, as RocksDB's HIGH and LOW pools), so a store's stalled writers wait
 * for flushes, never behind another store's long merges. A store's close waits for its own
 * jobs only; the pool runs on for the others.
 *
 * <p>Write buffers of the application's own ({@link #reserveWriteBuffer()}): bytes it holds
 * in memory before writing them into its stores (Kafka Streams stores' uncommitted writes) are
 * counted here, and with a memtable budget the memtables and those buffers together are held
 * to it: a buffer whose growth finds them over the budget is written into its store by its
 * owner ({@link WriteBufferReservation}).
 *
 * <p>Thread safe. Lifetime: build once, open stores with it, close it after the last of them.
 * Closing it stops the budget's switch thread and the pool's threads (running jobs are
 * interrupted, queued ones dropped) and no store can be opened with it any more; a store still
 * open then keeps its data readable and its memtables, is no longer switched for the budget,
 * and has its background work refused, so its writes stop with an error once a memtable must
 * be flushed — close the stores first.
 */
public final class SharedResources implements AutoCloseable {
    private final BlockCache cache;
    private final MemtableBudget budget;
    private final BackgroundPool pool;
    /** Bytes reserved by the write buffers ({@link WriteBufferReservation}) now. */
    private final AtomicLong writeBufferBytes = new AtomicLong();
    private volatile boolean closed;

    static {
        // The engine reads the parts through this (its types are not API: docs/engine.md, "Modules").
        SharedResourcesAccess.install(new SharedResourcesAccess.Accessor() {
            @Override
            public BlockCache blockCache(SharedResources resources) {
                return resources.blockCache();
            }

            @Override
            public MemtableBudget memtableBudget(SharedResources resources) {
                return resources.memtableBudget();
            }

            @Override
            public BackgroundPool backgroundPool(SharedResources resources) {
                return resources.backgroundPool();
            }
        });
    }

    private SharedResources(Builder b) {
        this.cache = BlockCache.create(b.blockCacheBytes, b.offHeap, b.blockCacheAdmission);
        this.budget = b.memtableBudgetBytes > 0 ? new MemtableBudget(b.memtableBudgetBytes) : null;
        this.pool = b.backgroundThreads > 0 ? BackgroundPool.shared(b.backgroundThreads) : null;
    }

    /**
     * A builder: a 64 MiB block cache and no memtable budget until told otherwise.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The shared cache (every store takes its own {@linkplain BlockCache#forStore() view} of it). */
    BlockCache blockCache() {
        return cache;
    }

    /** The memtable budget, or null when there is none. */
    MemtableBudget memtableBudget() {
        return budget;
    }

    /**
     * The background thread pool the stores share, or null when each store has its own threads.
     *
     * @throws ConfigException once these resources are closed (no store may be opened with them)
     */
    BackgroundPool backgroundPool() {
        if (closed && pool != null) {
            throw new ConfigException("the shared resources were closed: no store can be opened with them");
        }
        return pool;
    }

    /**
     * Whether the shared block cache keeps its page images in direct memory, and the stores
     * opened with these resources their memtables (whatever their own
     * {@link StoreConfig#offHeap()} says).
     *
     * @return true when the budget's memory is off the Java heap
     */
    public boolean offHeap() {
        return cache.offHeap();
    }

    /**
     * Bytes the memtables of the stores open with these resources hold now (0 without a budget: not
     * counted).
     *
     * @return the memtables' bytes, or 0 without a budget
     */
    public long memtableBytesUsed() {
        return budget == null ? 0 : budget.usedBytes();
    }

    /**
     * A reservation for one write buffer of the application's, counted with the memtables
     * against the memtable budget (see {@link WriteBufferReservation}). Also after
     * {@link #close()}: a reservation only counts.
     *
     * @return a new reservation of 0 bytes, which the caller closes when it drops the buffer
     */
    public WriteBufferReservation reserveWriteBuffer() {
        return new WriteBufferReservation(this, writeBufferBytes);
    }

    /**
     * Bytes the write buffers reserved with {@link #reserveWriteBuffer()} hold now (counted with
     * or without a memtable budget).
     *
     * @return the reservations' bytes
     */
    public long writeBufferBytesUsed() {
        return writeBufferBytes.get();
    }

    /**
     * The memtable budget, which the memtables and the write buffers share.
     *
     * @return the budget in bytes, or 0 when there is none
     */
    public long memtableBudgetBytes() {
        return budget == null ? 0 : budget.budgetBytes();
    }

    /** Whether the memtables and {@code writeBuffers} bytes of write buffers are over the memtable budget. */
    boolean overMemtableBudget(long writeBuffers) {
        if (budget == null) {
            return false;
        }
        long limit = budget.budgetBytes();
        // The write buffers alone decide without summing the members' memtables.
        return writeBuffers > limit || writeBuffers + budget.usedBytes() > limit;
    }

    /**
     * Bytes the shared block cache charges now.
     *
     * @return the cache's charged bytes
     */
    public long blockCacheWeightedBytes() {
        return cache.weightedSize();
    }

    /** Stops the budget's switch thread and the shared pool's threads (see the class comment). */
    @Override
    public void close() {
        closed = true;
        if (budget != null) {
            budget.close();
        }
        if (pool != null) {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "SharedResources[blockCacheBytes=" + cache.capacityBytes() + ", memtableBudgetBytes="
                + (budget == null ? 0 : budget.budgetBytes()) + ", backgroundThreads="
                + (pool == null ? 0 : pool.threads()) + (cache.offHeap() ? ", offHeap=true" : "")
                + (cache.admission() != CacheAdmission.SECOND_MISS ? ", blockCacheAdmission=" + cache.admission() : "")
                + ", writeBufferBytesUsed=" + writeBufferBytes.get() + "]";
    }

    /** Builds {@link SharedResources}; not thread safe. */
    public static final class Builder {
        private long blockCacheBytes = 64L << 20;
        private CacheAdmission blockCacheAdmission = CacheAdmission.SECOND_MISS;
        private long memtableBudgetBytes;
        private int backgroundThreads;
        private boolean offHeap;

        private Builder() {
        }

        /**
         * Keeps the budget's memory off the Java heap (default false): the shared block cache's
         * page images, and the memtable arenas of every store opened with these resources, in
         * direct memory ({@link StoreConfig#offHeap()}).
         *
         * @param offHeap true for direct memory
         * @return this builder
         */
        public Builder offHeap(boolean offHeap) {
            this.offHeap = offHeap;
            return this;
        }

        /**
         * Flush and merge threads of one pool every store opened with these resources runs its
         * background jobs on (a quarter of them, at least one, for flushes; the rest for merges;
         * besides them one thread for policy decisions and two for block-compaction sub-tasks);
         * 0 (default) for none: each store starts its own threads.
         *
         * @param threads 0, or 2 to 256
         * @return this builder
         */
        public Builder backgroundThreads(int threads) {
            if (threads != 0 && (threads < 2 || threads > 256)) {
                throw new ConfigException("backgroundThreads must be 0 (each store its own threads) or 2 to 256 "
                        + "(at least one flush thread and one merge thread), was " + threads);
            }
            this.backgroundThreads = threads;
            return this;
        }

        /**
         * Capacity of the one block cache (0 disables caching).
         *
         * @param bytes the cache's capacity in bytes, or 0
         * @return this builder
         */
        public Builder blockCacheBytes(long bytes) {
            if (bytes < 0) {
                throw new ConfigException("blockCacheBytes must be >= 0, was " + bytes);
            }
            this.blockCacheBytes = bytes;
            return this;
        }

        /**
         * Which leaves a lookup that missed the one block cache puts into it (default
         * {@link CacheAdmission#SECOND_MISS}; see {@link StoreConfig#blockCacheAdmission()}).
         *
         * @param admission second-miss or every-miss
         * @return this builder
         */
        public Builder blockCacheAdmission(CacheAdmission admission) {
            if (admission == null) {
                throw new ConfigException("blockCacheAdmission must be one of second-miss, every-miss, was null");
            }
            this.blockCacheAdmission = admission;
            return this;
        }

        /**
         * Bytes all the stores' memtables may hold together; 0 (default) for no budget.
         *
         * @param bytes the budget in bytes, or 0
         * @return this builder
         */
        public Builder memtableBudgetBytes(long bytes) {
            if (bytes < 0) {
                throw new ConfigException("memtableBudgetBytes must be >= 0, was " + bytes);
            }
            this.memtableBudgetBytes = bytes;
            return this;
        }

        /**
         * The shared resources, with the sizes given so far.
         *
         * @return the new shared resources, which the caller closes once the stores using them are
         *     closed
         */
        public SharedResources build() {
            return new SharedResources(this);
        }
    }
}
