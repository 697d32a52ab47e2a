package dev.strata.lsm;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.engine.MemtableBudget;

/**
 * Memory shared by any number of stores of one JVM, as RocksDB shares a {@code Cache} and a
 * {@code WriteBufferManager} between databases: one block cache for all of them (each store
 * keys its pages apart, {@link BlockCache#forStore()}), and optionally one memtable budget
 * ({@link MemtableBudget}: when all their memtables together hold more than 7/8 of the
 * budget, the largest active one among them is switched out and flushed, and writes wait
 * while they hold more than the budget). Give it to each store with
 * {@link StoreConfig.Builder#sharedResources(SharedResources)}; a store opened with it ignores
 * its own {@link StoreConfig#blockCacheBytes()}.
 *
 * <p>Background threads are not shared: each store keeps its own (see docs/engine.md).
 *
 * <p>Thread safe. Lifetime: build once, open stores with it, close it after the last of them
 * (closing it stops the budget's switch thread; stores still open keep working but are no
 * longer switched for the budget, and no store can be opened with it any more).
 */
public final class SharedResources implements AutoCloseable {
    private final BlockCache cache;
    private final MemtableBudget budget;

    private SharedResources(Builder b) {
        this.cache = BlockCache.create(b.blockCacheBytes);
        this.budget = b.memtableBudgetBytes > 0 ? new MemtableBudget(b.memtableBudgetBytes) : null;
    }

    /** A builder: a 64 MiB block cache and no memtable budget until told otherwise. */
    public static Builder builder() {
        return new Builder();
    }

    /** The shared cache (every store takes its own {@linkplain BlockCache#forStore() view} of it). */
    public BlockCache blockCache() {
        return cache;
    }

    /** The memtable budget, or null when there is none. */
    public MemtableBudget memtableBudget() {
        return budget;
    }

    /** Bytes the memtables of the stores open with these resources hold now (0 without a budget: not counted). */
    public long memtableBytesUsed() {
        return budget == null ? 0 : budget.usedBytes();
    }

    /** Bytes the shared block cache charges now. */
    public long blockCacheWeightedBytes() {
        return cache.weightedSize();
    }

    @Override
    public void close() {
        if (budget != null) {
            budget.close();
        }
    }

    @Override
    public String toString() {
        return "SharedResources[blockCacheBytes=" + cache.capacityBytes() + ", memtableBudgetBytes="
                + (budget == null ? 0 : budget.budgetBytes()) + "]";
    }

    /** Builds {@link SharedResources}; not thread safe. */
    public static final class Builder {
        private long blockCacheBytes = 64L << 20;
        private long memtableBudgetBytes;

        private Builder() {
        }

        /** Capacity of the one block cache (0 disables caching). */
        public Builder blockCacheBytes(long bytes) {
            if (bytes < 0) {
                throw new ConfigException("blockCacheBytes must be >= 0, was " + bytes);
            }
            this.blockCacheBytes = bytes;
            return this;
        }

        /** Bytes all the stores' memtables may hold together; 0 (default) for no budget. */
        public Builder memtableBudgetBytes(long bytes) {
            if (bytes < 0) {
                throw new ConfigException("memtableBudgetBytes must be >= 0, was " + bytes);
            }
            this.memtableBudgetBytes = bytes;
            return this;
        }

        public SharedResources build() {
            return new SharedResources(this);
        }
    }
}
