package dev.strata.lsm.version;

import java.util.Arrays;
import java.util.List;

/**
 * A sorted run: components with disjoint key ranges in key order. The id is stable across
 * versions, so a merge placement can name its target run while other merges finish.
 * Immutable.
 *
 * @param id the run's identity
 * @param components components in ascending key order
 */
public record Run(long id, List<Component> components) {
    public Run {
        components = List.copyOf(components);
    }

    /** The component whose key range contains {@code key}, or null. */
    public Component find(byte[] key) {
        int lo = 0;
        int hi = components.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Component c = components.get(mid);
            if (Arrays.compareUnsigned(c.meta().maxKey(), key) < 0) {
                lo = mid + 1;
            } else if (Arrays.compareUnsigned(c.meta().minKey(), key) > 0) {
                hi = mid - 1;
            } else {
                return c;
            }
        }
        return null;
    }

    /** Index of the first component whose max key is >= {@code key} (size if none). */
    public int firstEndingAtOrAfter(byte[] key) {
        int lo = 0;
        int hi = components.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(components.get(mid).meta().maxKey(), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Index of the last component whose min key is <= {@code key} (-1 if none). */
    public int lastStartingAtOrBefore(byte[] key) {
        int lo = 0;
        int hi = components.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(components.get(mid).meta().minKey(), key) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }
}
