package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policy.RecordingPolicyFactory;

import java.util.Queue;

/** Test-only {@code vlsm-recorded}: {@code vlsm}, recording its decisions for {@link VlsmEngineTraceTest}. */
public final class RecordingVlsmFactory extends RecordingPolicyFactory<Void> {
    static final String NAME = "vlsm-recorded";
    static final Queue<Decision<Void>> DECISIONS = newQueue();

    public RecordingVlsmFactory() {
        super(new VlsmPolicyFactory(), DECISIONS);
    }
}
