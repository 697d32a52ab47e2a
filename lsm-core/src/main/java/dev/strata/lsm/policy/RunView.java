package dev.strata.lsm.policy;

import java.util.List;

/**
 * A sorted run: components with disjoint key ranges, in key order. Immutable.
 *
 * @param components the components, ascending by key
 */
public record RunView(List<ComponentView> components) {
    /**
     * Creates a {@code RunView} from its components.
     *
     * @param components the components, ascending by key
     */
    public RunView {
        components = List.copyOf(components);
    }

    /**
     * Bytes of all components.
     *
     * @return the sum of the components' sizes in bytes
     */
    public long sizeBytes() {
        long s = 0;
        for (ComponentView c : components) {
            s += c.sizeBytes();
        }
        return s;
    }

    /**
     * The components whose key ranges intersect [min, max], in key order, found by binary search.
     *
     * @param min the smallest key of the range, inclusive
     * @param max the largest key of the range, inclusive
     * @return the overlapping components (empty when none)
     */
    public List<ComponentView> overlapping(byte[] min, byte[] max) {
        int lo = 0;
        int hi = components.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (java.util.Arrays.compareUnsigned(components.get(mid).maxKey(), min) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int end = lo;
        while (end < components.size() && java.util.Arrays.compareUnsigned(components.get(end).minKey(), max) <= 0) {
            end++;
        }
        return components.subList(lo, end);
    }

    /**
     * Whether any component is being merged.
     *
     * @return true when any component of the run is busy
     */
    public boolean busy() {
        for (ComponentView c : components) {
            if (c.busy()) {
                return true;
            }
        }
        return false;
    }
}
