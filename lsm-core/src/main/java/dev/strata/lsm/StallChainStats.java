package dev.strata.lsm;

import java.util.Arrays;

/**
 * Compaction chains (vLSM, seed 002 §3; FAMILIES.md §3.2): for every stall episode — writers
 * held because the memtable backlog is full or the merge policy said STOP, until a memtable
 * could be switched out — the merges that completed meanwhile, by the level they wrote into.
 * A chain's length is the number of levels it touched, its width at a level the input bytes
 * merged into that level, and its bytes the total a memtable waited for. Immutable.
 *
 * @param episodes stall episodes since the store opened
 * @param maxStallNanos the longest episode
 * @param maxChainBytes the most bytes merged during one episode
 * @param meanChainBytes bytes merged per episode, on average
 * @param maxChainLength the most levels one episode's merges wrote into
 * @param widestChainBytesPerLevel the episode with {@code maxChainBytes}: input bytes merged into each level (level 0 first)
 */
public record StallChainStats(long episodes, long maxStallNanos, long maxChainBytes, double meanChainBytes,
                              int maxChainLength, long[] widestChainBytesPerLevel) {
    /** No episode yet. */
    public static final StallChainStats NONE = new StallChainStats(0, 0, 0, 0, 0, new long[0]);

    /**
     * Creates a {@code StallChainStats} from its components.
     *
     * @param episodes stall episodes since the store opened
     * @param maxStallNanos the longest episode
     * @param maxChainBytes the most bytes merged during one episode
     * @param meanChainBytes bytes merged per episode, on average
     * @param maxChainLength the most levels one episode's merges wrote into
     * @param widestChainBytesPerLevel the episode with {@code maxChainBytes}: input bytes merged into each level (level 0 first)
     */
    public StallChainStats {
        widestChainBytesPerLevel = widestChainBytesPerLevel.clone();
    }

    /**
     * The episode with {@code maxChainBytes}: input bytes merged into each level (level 0 first).
     *
     * @return a copy
     */
    @Override
    public long[] widestChainBytesPerLevel() {
        return widestChainBytesPerLevel.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StallChainStats s && episodes == s.episodes && maxStallNanos == s.maxStallNanos
                && maxChainBytes == s.maxChainBytes && meanChainBytes == s.meanChainBytes
                && maxChainLength == s.maxChainLength
                && Arrays.equals(widestChainBytesPerLevel, s.widestChainBytesPerLevel);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(episodes) * 31 + Arrays.hashCode(widestChainBytesPerLevel);
    }

    @Override
    public String toString() {
        return String.format("StallChains[episodes=%d, maxStall=%.1fms, maxChainBytes=%d, meanChainBytes=%.0f, "
                        + "maxChainLength=%d, widest=%s]", episodes, maxStallNanos / 1e6, maxChainBytes, meanChainBytes,
                maxChainLength, Arrays.toString(widestChainBytesPerLevel));
    }
}
