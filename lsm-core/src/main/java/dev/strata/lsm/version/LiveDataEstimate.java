package dev.strata.lsm.version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An estimate of the live user data of a version (key and value bytes of the newest
 * version of each live key) from component metadata alone, without reading a table.
 *
 * <p>Summing every component counts a key once per component that holds a version of it,
 * so a pile of overwritten versions looks live: that is how space amplification used to
 * be under-reported (issue 9). Instead, like RocksDB's {@code EstimateLiveDataSize}, this
 * counts a maximal set of components whose key ranges do not overlap, so that no key is
 * counted twice: whole runs first, the run with the most live bytes first (a run holds at
 * most one version of a key, except versions kept for snapshots), then each component of
 * the other runs whose key range overlaps nothing counted yet. A component's live bytes
 * are its user bytes scaled by the fraction of its entries that are not tombstones.
 *
 * <p>The estimate is exact (up to that tombstone scaling and snapshot versions) when one
 * run holds all data, as after a full merge, and when runs cover disjoint key ranges (as
 * sequential inserts do). With runs that overlap in key range it is low, because keys of
 * the newer runs that the counted run lacks are left out, and the space amplification
 * computed from it is then high: it errs towards reporting more amplification, never
 * less through overwritten versions.
 */
public final class LiveDataEstimate {
    private LiveDataEstimate() {
    }

    /** Estimated live user bytes of {@code version}; 0 when it has no components. */
    public static double of(Version version) {
        List<Run> runs = new ArrayList<>();
        for (List<Run> level : version.levels()) {
            runs.addAll(level);
        }
        // Stable sort: among equal runs the newer position stays first.
        runs.sort(Comparator.comparingDouble(LiveDataEstimate::liveBytes).reversed());
        TreeMap<byte[], byte[]> counted = new TreeMap<>(Arrays::compareUnsigned);
        double live = 0;
        for (Run run : runs) {
            List<Component> take = new ArrayList<>();
            for (Component c : run.components()) {
                if (!overlapsCounted(counted, c.meta().minKey(), c.meta().maxKey())) {
                    take.add(c);
                }
            }
            // A run's components are disjoint: add them after checking them all against earlier runs.
            for (Component c : take) {
                counted.put(c.meta().minKey(), c.meta().maxKey());
                live += c.meta().liveUserBytes();
            }
        }
        return live;
    }

    private static double liveBytes(Run run) {
        double sum = 0;
        for (Component c : run.components()) {
            sum += c.meta().liveUserBytes();
        }
        return sum;
    }

    /** Whether [min, max] intersects one of the disjoint ranges in {@code counted} (start to end). */
    private static boolean overlapsCounted(TreeMap<byte[], byte[]> counted, byte[] min, byte[] max) {
        Map.Entry<byte[], byte[]> e = counted.floorEntry(max);
        return e != null && Arrays.compareUnsigned(e.getValue(), min) >= 0;
    }
}
