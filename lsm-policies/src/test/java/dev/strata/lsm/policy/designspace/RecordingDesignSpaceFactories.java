package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.RecordingPolicyFactory;

import java.util.Queue;

/**
 * Test-only {@code rr-recorded} and {@code blockdb-recorded}: the presets, recording their
 * decisions for {@link SequentialLoadTest}.
 */
public final class RecordingDesignSpaceFactories {
    private RecordingDesignSpaceFactories() {
    }

    /** {@code rr-recorded}. */
    public static final class Rr extends RecordingPolicyFactory<Void> {
        static final String NAME = "rr-recorded";
        static final Queue<Decision<Void>> DECISIONS = newQueue();

        public Rr() {
            super(new DesignSpacePolicyFactory.RoundRobin(), DECISIONS);
        }
    }

    /** {@code blockdb-recorded}. */
    public static final class BlockDb extends RecordingPolicyFactory<Void> {
        static final String NAME = "blockdb-recorded";
        static final Queue<Decision<Void>> DECISIONS = newQueue();

        public BlockDb() {
            super(new DesignSpacePolicyFactory.BlockDb(), DECISIONS);
        }
    }
}
