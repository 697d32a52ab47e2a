package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A test policy that asks for whatever merges its test scripts for the view it is shown. Each
 * test gives its store its own instance ({@code StoreConfig.Builder.mergePolicy(MergePolicy)})
 * and sets the scripts on it; the scripts are read from the engine's threads, hence the atomic
 * references.
 */
final class ScriptedPolicy implements MergePolicy {
    /** Merges asked for once: consumed by the first call that returns tasks; null: none. */
    final AtomicReference<Function<TreeView, List<MergeTask>>> script = new AtomicReference<>();
    /** The plan for the next flush, used once; null: a new newest run of level 0. */
    final AtomicReference<Function<TreeView, FlushPlan>> flushScript = new AtomicReference<>();
    /** What {@link #admission(TreeView)} answers; null: GO. */
    final AtomicReference<Function<TreeView, WriteAdmission>> admission = new AtomicReference<>();
    /** What {@link #slowdownDepth(TreeView)} answers; null: 0. */
    final AtomicReference<java.util.function.ToDoubleFunction<TreeView>> depth = new AtomicReference<>();
    /** A script asked at every decision and never consumed; null: none. Used before {@link #script}. */
    final AtomicReference<Function<TreeView, List<MergeTask>>> standingScript = new AtomicReference<>();

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        Function<TreeView, FlushPlan> plan = flushScript.getAndSet(null);
        return plan == null ? MergePolicy.super.planFlush(tree, flushed) : plan.apply(tree);
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        Function<TreeView, WriteAdmission> answer = admission.get();
        return answer == null ? WriteAdmission.GO : answer.apply(tree);
    }

    @Override
    public double slowdownDepth(TreeView tree) {
        java.util.function.ToDoubleFunction<TreeView> answer = depth.get();
        return answer == null ? 0.0 : answer.applyAsDouble(tree);
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        Function<TreeView, List<MergeTask>> standing = standingScript.get();
        if (standing != null) {
            return standing.apply(tree);
        }
        Function<TreeView, List<MergeTask>> once = script.get();
        if (once == null) {
            return List.of();
        }
        List<MergeTask> tasks = once.apply(tree);
        if (!tasks.isEmpty()) {
            script.compareAndSet(once, null);
        }
        return tasks;
    }
}
