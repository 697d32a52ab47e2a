package dev.strata.lsm.policy.vlsm;

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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test-only {@code vlsm-recorded}: {@code vlsm} with the same parameters, recording every
 * decision the engine asks of it (the view and the tasks returned) for
 * {@link VlsmEngineTraceTest}. The conformance suites leave it out (it is {@code vlsm}).
 */
public final class RecordingVlsmFactory implements MergePolicyFactory {
    static final String NAME = "vlsm-recorded";
    static final Queue<Decision> DECISIONS = new ConcurrentLinkedQueue<>();

    record Decision(TreeView view, List<MergeTask> tasks) {
    }

    private final VlsmPolicyFactory vlsm = new VlsmPolicyFactory();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "vlsm, recording its decisions (tests only)";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return vlsm.parameters();
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        MergePolicy delegate = vlsm.create(params);
        return new MergePolicy() {
            @Override
            public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
                return delegate.planFlush(tree, flushed);
            }

            @Override
            public List<MergeTask> pickMerges(TreeView tree) {
                List<MergeTask> tasks = delegate.pickMerges(tree);
                DECISIONS.add(new Decision(tree, List.copyOf(tasks)));
                return tasks;
            }

            @Override
            public WriteAdmission admission(TreeView tree) {
                return delegate.admission(tree);
            }

            @Override
            public byte[] persistentState(TreeView tree) {
                return delegate.persistentState(tree);
            }
        };
    }
}
