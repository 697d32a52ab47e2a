package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.ComponentView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The data-movement rules as orderings of a level's files, and the per-file trigger
 * conditions. Every ordering ends with the smallest key, so decisions are deterministic.
 */
final class FileRanking {
    private static final Comparator<ComponentView> BY_KEY = (a, b) -> Arrays.compareUnsigned(a.minKey(), b.minKey());

    private FileRanking() {
    }

    /** {@code files} (one run of {@code level}, in key order) in the order {@code movement} prefers them. */
    static List<ComponentView> rank(DataMovement movement, TreeShape t, int level, List<ComponentView> files,
                                    byte[] cursor) {
        List<ComponentView> out = new ArrayList<>(files);
        switch (movement) {
            case ROUND_ROBIN -> {
                int start = 0;
                if (cursor != null) {
                    while (start < out.size() && Arrays.compareUnsigned(out.get(start).minKey(), cursor) <= 0) {
                        start++;
                    }
                    if (start == out.size()) {
                        start = 0; // wrap
                    }
                }
                List<ComponentView> rotated = new ArrayList<>(out.subList(start, out.size()));
                rotated.addAll(out.subList(0, start));
                return rotated;
            }
            case LEAST_OVERLAP_PARENT -> out.sort(byOverlap(t, level + 1).thenComparing(BY_KEY));
            case LEAST_OVERLAP_GRANDPARENT -> out.sort(byOverlap(t, level + 2).thenComparing(BY_KEY));
            case COLDEST -> out.sort(Comparator.comparingLong(ComponentView::maxSeqno).thenComparing(BY_KEY));
            case OLDEST -> out.sort(Comparator.comparingLong(ComponentView::minSeqno).thenComparing(BY_KEY));
            case TOMBSTONE_DENSITY -> out.sort(Comparator.comparingDouble((ComponentView c) -> -c.tombstoneDensity())
                    .thenComparing(BY_KEY));
            case EXPIRED_TOMBSTONE_TTL -> out.sort(Comparator.comparingLong(ComponentView::oldestTombstoneMillis)
                    .thenComparing(BY_KEY));
        }
        return out;
    }

    /** RocksDB's kMinOverlappingRatio: bytes of {@code level}'s files overlapping the file / the file's bytes. */
    private static Comparator<ComponentView> byOverlap(TreeShape t, int level) {
        return Comparator.comparingDouble(c -> (double) t.overlapBytes(level, c.minKey(), c.maxKey())
                / Math.max(1, c.sizeBytes()));
    }

    /** Whether a per-file {@code trigger} fires for {@code c} at {@code level}. */
    static boolean due(TriggerKind trigger, DesignSpaceConfig cfg, ComponentView c, int level, int lastLevel,
                       long now) {
        return switch (trigger) {
            case STALENESS -> cfg.fileTtlMillis() > 0 && now - c.creationTimeMillis() > cfg.fileTtlMillis();
            case TOMBSTONE_DENSITY -> c.tombstoneCount() > 0 && c.tombstoneDensity() >= cfg.tombstoneDensity();
            case TOMBSTONE_TTL -> c.oldestTombstoneMillis() != ComponentView.NO_TOMBSTONE
                    && now - c.oldestTombstoneMillis() > tombstoneDeadline(cfg, level, lastLevel);
            default -> false;
        };
    }

    /**
     * Whether a file of the last level that holds tombstones may be rewritten in place again.
     * Every such file was written by a bottommost merge (files with tombstones are rewritten,
     * never moved, into the last level), which drops every tombstone no snapshot needs; one
     * that still holds tombstones had to keep them, and rewriting it at once would keep them
     * again, forever while the snapshot lives (found by the conformance suite: TSD rewrote such
     * a file about a hundred times a second). It is retried once it is older than D_th
     * ({@code tombstone-ttl}), the time within which a tombstone must reach the bottom anyway.
     */
    static boolean bottommostRetryDue(DesignSpaceConfig cfg, ComponentView c, long now) {
        return now - c.creationTimeMillis() >= cfg.tombstoneTtlMillis();
    }

    /**
     * How long a tombstone may live before it must have left {@code level}: Lethe's split of
     * the delete-persistence threshold D_th into per-level TTLs growing by T per level,
     * d_j = D_th (T - 1) T^(j-1) / (T^L - 1) for paper levels j = 1..L, summed over the
     * levels down to this one (Strata's level i is the paper's level i + 1). Not in seed 003;
     * the formula is the one FAMILIES.md section 4.2 gives.
     */
    static long tombstoneDeadline(DesignSpaceConfig cfg, int level, int lastLevel) {
        int levels = lastLevel + 1;
        double t = cfg.sizeRatio();
        double share = (Math.pow(t, level + 1) - 1) / (Math.pow(t, levels) - 1);
        return (long) (cfg.tombstoneTtlMillis() * Math.min(1.0, share));
    }

    /** Most urgent first for a per-file trigger. */
    static Comparator<ComponentView> urgency(TriggerKind trigger) {
        return switch (trigger) {
            case STALENESS -> Comparator.comparingLong(ComponentView::creationTimeMillis).thenComparing(BY_KEY);
            case TOMBSTONE_DENSITY -> Comparator.comparingDouble((ComponentView c) -> -c.tombstoneDensity())
                    .thenComparing(BY_KEY);
            default -> Comparator.comparingLong(ComponentView::oldestTombstoneMillis).thenComparing(BY_KEY);
        };
    }
}
