package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test-only {@code spooky-recorded}: {@code spooky} with the same parameters, recording every
 * decision the engine asks of it — the view, the pass state the policy held before deciding,
 * and the tasks it returned — for {@link SpookyEngineTraceTest}. The conformance suites
 * leave it out (it is {@code spooky}).
 */
public final class RecordingSpookyFactory implements MergePolicyFactory {
    static final String NAME = "spooky-recorded";
    static final Queue<Decision> DECISIONS = new ConcurrentLinkedQueue<>();

    /** The policy's pass state when a decision began. */
    record PassState(boolean active, int target, long largestBytes) {
    }

    record Decision(TreeView view, PassState before, List<MergeTask> tasks) {
    }

    private final SpookyPolicyFactory spooky = new SpookyPolicyFactory();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "spooky, recording its decisions (tests only)";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return spooky.parameters();
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        MergePolicy delegate = spooky.create(params);
        SpookyState state = stateOf(delegate);
        return new MergePolicy() {
            @Override
            public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
                return delegate.planFlush(tree, flushed);
            }

            @Override
            public List<MergeTask> pickMerges(TreeView tree) {
                // The policy adopts the view's persisted state first; read it as the policy will.
                state.load(tree.policyState());
                PassState before = new PassState(state.passActive, state.passTarget, state.passLargestBytes);
                List<MergeTask> tasks = delegate.pickMerges(tree);
                DECISIONS.add(new Decision(tree, before, List.copyOf(tasks)));
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

    private static SpookyState stateOf(MergePolicy policy) {
        try {
            Field f = SpookyPolicy.class.getDeclaredField("state");
            f.setAccessible(true);
            return (SpookyState) f.get(policy);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("SpookyPolicy's state field", e);
        }
    }
}
