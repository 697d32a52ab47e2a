package dev.strata.lsm.policy;

import java.util.List;
import java.util.Objects;

/**
 * What happens to a flushed memtable. Either it becomes a component of its own at
 * {@code placement}, or — the eager, stack-based policies' choice — it is merged, in the
 * same flush job, with the components in {@code mergeWith}, and the merge output lands at
 * {@code placement}; the flushed table is never visible as a separate component, so a
 * bounded-depth policy keeps its bound at every instant. {@code mergesFirst} are merges
 * the engine completes before installing the flush (a non-eager policy that must make
 * room first). The engine writes the flushed table, then merges it: flush bytes and merge
 * bytes are both counted (the "flush-then-merge" accounting).
 *
 * @param mergeWith components merged with the flushed table (empty: no merge)
 * @param placement where the flush's result lands
 * @param mergesFirst merges to complete before the flush is installed
 * @param reason why, for logs and golden tests
 */
public record FlushPlan(List<ComponentId> mergeWith, Placement placement, List<MergeTask> mergesFirst,
                        String reason) {
    public FlushPlan {
        mergeWith = List.copyOf(mergeWith);
        mergesFirst = List.copyOf(mergesFirst);
        Objects.requireNonNull(placement, "placement");
        reason = reason == null ? "" : reason;
    }

    /** The flush becomes a component of its own at {@code placement}. */
    public static FlushPlan newComponent(Placement placement, String reason) {
        return new FlushPlan(List.of(), placement, List.of(), reason);
    }

    /** The flush is merged with {@code components}; the output lands at {@code placement}. */
    public static FlushPlan mergeWith(List<ComponentId> components, Placement placement, String reason) {
        return new FlushPlan(components, placement, List.of(), reason);
    }

    /** Whether the flush is merged with existing components. */
    public boolean merges() {
        return !mergeWith.isEmpty();
    }

    @Override
    public String toString() {
        String s = merges() ? "merge flush with " + mergeWith + " -> " + placement : "new component at " + placement;
        if (!mergesFirst.isEmpty()) {
            s = mergesFirst + " then " + s;
        }
        return reason.isEmpty() ? s : s + " (" + reason + ")";
    }
}
