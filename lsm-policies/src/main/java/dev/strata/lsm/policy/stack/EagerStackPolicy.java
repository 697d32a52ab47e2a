package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;

import java.util.List;

/**
 * Shared shape of the eager, stable, bounded-depth policies (Constant, Bigtable,
 * MinLatency, Binomial): at each flush exactly one new component is created, by merging
 * the flushed memtable with the {@code j} newest components (j = 0: the flush is a new
 * component). Because the merge is part of the flush, the stack never holds more than k
 * components. Should the stack ever hold more than k (after a policy change), the newest
 * excess is merged away by {@link #pickMerges}.
 */
abstract class EagerStackPolicy implements MergePolicy {
    protected final int k;

    EagerStackPolicy(int k) {
        this.k = k;
    }

    /**
     * How many of the newest components flush {@code t} merges with (0 to stack size).
     *
     * @param stack the stack before the flush, oldest first
     * @param flushed the flushed table
     * @param t the flush number, 1 for the first flush in the store's life
     */
    abstract int newestToMerge(Stack stack, ComponentView flushed, long t);

    /** The policy's name for reasons. */
    abstract String name();

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        Stack stack = Stack.of(tree);
        long t = tree.flushCounter() + 1;
        int j = Math.min(newestToMerge(stack, flushed, t), stack.size());
        if (j <= 0) {
            return FlushPlan.newComponent(Placement.newRun(0), name() + " t=" + t + ": new component");
        }
        int from = stack.size() - j;
        return FlushPlan.mergeWith(stack.ids(from, stack.size()), stack.positionOf(from),
                name() + " t=" + t + ": merge flush with " + j + " newest");
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        Stack stack = Stack.of(tree);
        if (stack.size() <= k) {
            return List.of();
        }
        int from = stack.size() - (stack.size() - k + 1);
        if (stack.busy(from, stack.size())) {
            return List.of();
        }
        return List.of(stack.merge(from, stack.size(), name() + ": " + stack.size() + " components exceed k=" + k));
    }

    @Override
    public String toString() {
        return name() + "(k=" + k + ")";
    }
}
