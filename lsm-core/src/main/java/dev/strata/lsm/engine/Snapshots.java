package dev.strata.lsm.engine;

import java.util.TreeMap;

/**
 * The live snapshots of a store: sequence numbers that reads still see, each with the number
 * of snapshots taken at it. Flushes and merges keep, for each key, the newest version at or
 * below each live snapshot ({@link dev.strata.lsm.merge.VersionRetention}). Thread safe.
 */
final class Snapshots {
    private final TreeMap<Long, Integer> counts = new TreeMap<>();

    /** Registers a snapshot at {@code seq}. */
    synchronized void add(long seq) {
        counts.merge(seq, 1, Integer::sum);
    }

    /** Releases one snapshot at {@code seq}; releasing one never taken does nothing. */
    synchronized void release(long seq) {
        counts.computeIfPresent(seq, (k, n) -> n == 1 ? null : n - 1);
    }

    /** The live snapshots' sequence numbers, ascending, each once. */
    synchronized long[] live() {
        return counts.keySet().stream().mapToLong(Long::longValue).toArray();
    }
}
