package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policy.PolicyParameterException;

/**
 * The parameters of {@code spooky} (FAMILIES.md §1, seed 000).
 *
 * @param sizeRatio T, the capacity ratio of adjacent levels (paper: 5)
 * @param xOffset d = L − X: dividing merges go into level X = max(1, L − d); 0 is Full Merge
 * @param layout the layout of the levels: {@code leveling} (one run per level),
 *     {@code lazy-leveling} (runs accumulate at levels 1..L−1, one run at L) or {@code tiering}
 *     (runs accumulate at every level, L too) — FAMILIES.md §1.8
 * @param l0CompactionTrigger α: level-0 files that start a merge (RocksDB's level0_file_num_compaction_trigger)
 * @param l0SlowdownTrigger β: level-0 files at which writes slow down
 * @param l0StopTrigger γ: level-0 files at which writes stop while a merge runs
 * @param skewOptimizations leave partitions that received no new data untouched (§4.3, Fig. 11A)
 * @param intraL0Merge merge α or more idle, equal-sized level-0 files into one while the merge
 *     out of level 0 waits (the paper's RocksDB build, §5 "Avoiding Stalling")
 * @param flushAsOwnFile move level-0 files down instead of merging them when no key ranges
 *     overlap (§4.3, Fig. 11B; off in the paper's headline runs)
 */
public record SpookyConfig(int sizeRatio, int xOffset, String layout, int l0CompactionTrigger, int l0SlowdownTrigger,
                           int l0StopTrigger, boolean skewOptimizations, boolean intraL0Merge,
                           boolean flushAsOwnFile) {
    /** The values of {@code layout}. */
    public static final java.util.List<String> LAYOUTS = java.util.List.of("leveling", "lazy-leveling", "tiering");

    public SpookyConfig {
        if (sizeRatio < 2) {
            throw new IllegalArgumentException("spooky: size-ratio must be >= 2, got " + sizeRatio);
        }
        if (xOffset < 0) {
            throw new IllegalArgumentException("spooky: x-offset must be >= 0, got " + xOffset);
        }
        if (!LAYOUTS.contains(layout)) {
            throw new IllegalArgumentException("spooky: layout must be one of " + LAYOUTS + ", got '" + layout + "'");
        }
        if (l0CompactionTrigger < 1) {
            throw new IllegalArgumentException("spooky: l0-compaction-trigger must be >= 1, got "
                    + l0CompactionTrigger);
        }
        if (l0SlowdownTrigger < 1) {
            throw new IllegalArgumentException("spooky: l0-slowdown-trigger must be >= 1, got " + l0SlowdownTrigger);
        }
        if (l0StopTrigger < l0SlowdownTrigger) {
            throw new PolicyParameterException("spooky: need l0-slowdown-trigger (" + l0SlowdownTrigger
                    + ") <= l0-stop-trigger (" + l0StopTrigger + ")", "l0-slowdown-trigger", "l0-stop-trigger");
        }
        if (l0StopTrigger < l0CompactionTrigger) {
            throw new PolicyParameterException("spooky: l0-stop-trigger (" + l0StopTrigger
                    + ") must be >= l0-compaction-trigger (" + l0CompactionTrigger + "), or writers would stop "
                    + "before a merge is due", "l0-stop-trigger", "l0-compaction-trigger");
        }
    }

    /**
     * Whether {@code level} (≥ 1) holds several runs, each merge into it adding one, when the
     * largest level is {@code largest}: every level under tiering, the levels above the largest
     * under lazy leveling, none under leveling.
     */
    boolean tiered(int level, int largest) {
        return switch (layout) {
            case "tiering" -> level >= 1;
            case "lazy-leveling" -> level >= 1 && level < largest;
            default -> false;
        };
    }

    /** The paper's headline configuration: T = 5, X = L − 2, leveling, α = β = 4, γ = 9, skew optimizations and the intra-L0 merge on. */
    public static SpookyConfig defaults() {
        return new SpookyConfig(5, 2, "leveling", 4, 4, 9, true, true, false);
    }
}
