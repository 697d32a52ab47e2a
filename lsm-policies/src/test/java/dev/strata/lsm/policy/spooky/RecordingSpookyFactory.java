package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.RecordingPolicyFactory;
import dev.strata.lsm.policy.TreeView;

import java.lang.reflect.Field;
import java.util.Queue;

/**
 * Test-only {@code spooky-recorded}: {@code spooky}, recording its decisions with the pass
 * state it held as each began, for {@link SpookyEngineTraceTest}.
 */
public final class RecordingSpookyFactory extends RecordingPolicyFactory<RecordingSpookyFactory.PassState> {
    static final String NAME = "spooky-recorded";
    static final Queue<Decision<PassState>> DECISIONS = newQueue();

    /** The policy's pass state when a decision began. */
    record PassState(boolean active, int target, long largestBytes) {
    }

    public RecordingSpookyFactory() {
        super(new SpookyPolicyFactory(), DECISIONS);
    }

    @Override
    protected PassState before(MergePolicy policy, TreeView view) {
        SpookyState state = stateOf(policy);
        // The policy adopts the view's persisted state first; read it as the policy will.
        state.load(view.policyState());
        return new PassState(state.passActive, state.passTarget, state.passLargestBytes);
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
