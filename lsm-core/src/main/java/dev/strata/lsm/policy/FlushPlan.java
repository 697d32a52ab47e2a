package dev.strata.lsm.policy;

import java.util.List;
import java.util.Objects;

/**
 * What happens to a flushed memtable. Either it becomes a component of its own at
 * {@code placement} (cut into files by {@code output}), or — the eager, stack-based
 * policies' choice — it is merged, in the same flush job, with the components in
 * {@code mergeWith}, and the merge output, cut by {@code output}, lands at
 * {@code placement}; the flushed table is never visible as a separate component, so a
 * bounded-depth policy keeps its bound at every instant (and an eager dividing merge can
 * cut its output to the target level's files). {@code mergesFirst} are merges the engine
 * completes before installing the flush (a non-eager policy that must make room first).
 * The engine writes the flushed table, then merges it: flush bytes and merge bytes are
 * both counted (the "flush-then-merge" accounting). Every field is honoured or the plan
 * is rejected as a policy error.
 *
 * @param mergeWith components merged with the flushed table (empty: no merge)
 * @param placement where the flush's result lands
 * @param output how the flush's result is cut into files
 * @param mergesFirst merges to complete before the flush is installed
 * @param reason why, for logs and golden tests
 */
public record FlushPlan(List<ComponentId> mergeWith, Placement placement, OutputSpec output,
                        List<MergeTask> mergesFirst, String reason) {
    /**
     * Creates a {@code FlushPlan} from its components.
     *
     * @param mergeWith components merged with the flushed table (empty: no merge)
     * @param placement where the flush's result lands
     * @param output how the flush's result is cut into files
     * @param mergesFirst merges to complete before the flush is installed
     * @param reason why, for logs and golden tests
     */
    public FlushPlan {
        mergeWith = List.copyOf(mergeWith);
        mergesFirst = List.copyOf(mergesFirst);
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(output, "output");
        reason = reason == null ? "" : reason;
    }

    /**
     * The flush becomes a component of its own at {@code placement}.
     *
     * @param placement where the flushed table lands
     * @param reason why, for logs and golden tests (null: "")
     * @return a new plan that merges nothing and writes one file
     */
    public static FlushPlan newComponent(Placement placement, String reason) {
        return new FlushPlan(List.of(), placement, OutputSpec.singleFile(), List.of(), reason);
    }

    /**
     * The flush is merged with {@code components}; the output lands at {@code placement}.
     *
     * @param components the components merged with the flushed table
     * @param placement where the merge's output lands
     * @param reason why, for logs and golden tests (null: "")
     * @return a new plan whose output is one file
     */
    public static FlushPlan mergeWith(List<ComponentId> components, Placement placement, String reason) {
        return new FlushPlan(components, placement, OutputSpec.singleFile(), List.of(), reason);
    }

    /**
     * A copy whose result is cut by {@code newOutput}.
     *
     * @param newOutput how the flush's result is cut into files
     * @return a new plan, otherwise equal to this one
     */
    public FlushPlan withOutput(OutputSpec newOutput) {
        return new FlushPlan(mergeWith, placement, newOutput, mergesFirst, reason);
    }

    /**
     * A copy that completes {@code tasks} before the flush is installed.
     *
     * @param tasks the merges to complete first
     * @return a new plan, otherwise equal to this one
     */
    public FlushPlan withMergesFirst(List<MergeTask> tasks) {
        return new FlushPlan(mergeWith, placement, output, tasks, reason);
    }

    /**
     * Whether the flush is merged with existing components.
     *
     * @return true when {@link #mergeWith} is not empty
     */
    public boolean merges() {
        return !mergeWith.isEmpty();
    }

    @Override
    public String toString() {
        String s = merges() ? "merge flush with " + mergeWith + " -> " + placement : "new component at " + placement;
        if (output.cuts()) {
            s += " [" + output + "]";
        }
        if (!mergesFirst.isEmpty()) {
            s = mergesFirst + " then " + s;
        }
        return reason.isEmpty() ? s : s + " (" + reason + ")";
    }
}
