package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A test policy ({@code test-scripted}) that asks for whatever merges the test's script
 * returns for the view it is shown, once: the script is consumed by the first call that
 * returns tasks. Tests run one at a time, so the static hand-off is enough.
 */
public final class ScriptedPolicy implements MergePolicy {
    static final String NAME = "test-scripted";
    static final AtomicReference<Function<TreeView, List<MergeTask>>> SCRIPT = new AtomicReference<>();
    /** The plan for the next flush, used once; null: a new newest run of level 0. */
    static final AtomicReference<Function<TreeView, FlushPlan>> FLUSH_SCRIPT = new AtomicReference<>();

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        Function<TreeView, FlushPlan> script = FLUSH_SCRIPT.getAndSet(null);
        return script == null ? MergePolicy.super.planFlush(tree, flushed) : script.apply(tree);
    }

    /** What {@link #admission} answers; null: GO. */
    static final AtomicReference<Function<TreeView, WriteAdmission>> ADMISSION = new AtomicReference<>();

    @Override
    public WriteAdmission admission(TreeView tree) {
        Function<TreeView, WriteAdmission> script = ADMISSION.get();
        return script == null ? WriteAdmission.GO : script.apply(tree);
    }

    /** A script asked at every decision and never consumed; null: none. Used before {@link #SCRIPT}. */
    static final AtomicReference<Function<TreeView, List<MergeTask>>> STANDING_SCRIPT = new AtomicReference<>();

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        Function<TreeView, List<MergeTask>> standing = STANDING_SCRIPT.get();
        if (standing != null) {
            return standing.apply(tree);
        }
        Function<TreeView, List<MergeTask>> script = SCRIPT.get();
        if (script == null) {
            return List.of();
        }
        List<MergeTask> tasks = script.apply(tree);
        if (!tasks.isEmpty()) {
            SCRIPT.compareAndSet(script, null);
        }
        return tasks;
    }

    /** Registered in META-INF/services for tests. */
    public static final class Factory implements MergePolicyFactory {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "runs the merges a test scripts (tests only)";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of();
        }

        @Override
        public MergePolicy create(PolicyParameters params) {
            return new ScriptedPolicy();
        }
    }
}
