package dev.strata.lsm.policy;

import java.util.List;

/**
 * A sorted run: components with disjoint key ranges, in key order. Immutable.
 *
 * @param components the components, ascending by key
 */
public record RunView(List<ComponentView> components) {
    public RunView {
        components = List.copyOf(components);
    }

    /** Bytes of all components. */
    public long sizeBytes() {
        long s = 0;
        for (ComponentView c : components) {
            s += c.sizeBytes();
        }
        return s;
    }

    /** Whether any component is being merged. */
    public boolean busy() {
        for (ComponentView c : components) {
            if (c.busy()) {
                return true;
            }
        }
        return false;
    }
}
