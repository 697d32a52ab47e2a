package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentView;

import java.util.ArrayList;
import java.util.List;

/**
 * Carries tombstone ages through merges. A merge output is created now, but the tombstones
 * it holds reached disk when their inputs did: an output with tombstones takes the oldest
 * tombstone time of the inputs with tombstones whose key range meets its own (of all
 * inputs with tombstones when none does), so a time-based policy sees how long a delete
 * has waited, at memtable granularity. An input whose time is unknown (0, recorded by a
 * format-1 manifest) makes the output's unknown too.
 */
public final class ComponentTimes {
    private ComponentTimes() {
    }

    /** {@code outputs} with oldest-tombstone times inherited from {@code inputs}. */
    public static List<Component> inherit(List<Component> outputs, List<Component> inputs) {
        List<Component> result = new ArrayList<>(outputs.size());
        for (Component out : outputs) {
            ComponentMeta m = out.meta();
            if (m.tombstoneCount() == 0) {
                result.add(out);
                continue;
            }
            long overlapping = ComponentView.NO_TOMBSTONE;
            long any = ComponentView.NO_TOMBSTONE;
            for (Component in : inputs) {
                long t = in.meta().oldestTombstoneMillis();
                if (in.meta().tombstoneCount() == 0 || t == ComponentView.NO_TOMBSTONE) {
                    continue;
                }
                any = Math.min(any, t);
                if (in.overlaps(out)) {
                    overlapping = Math.min(overlapping, t);
                }
            }
            long inherited = overlapping != ComponentView.NO_TOMBSTONE ? overlapping : any;
            result.add(inherited < m.oldestTombstoneMillis() ? out.withMeta(m.withOldestTombstoneMillis(inherited)) : out);
        }
        return result;
    }
}
