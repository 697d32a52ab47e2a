package dev.strata.lsm.policy.stack;

import dev.strata.lsm.testkit.SlowTest;

/** {@link FlowControlTest} at full size (250,000 simulated flushes), in the slow lane only. */
@SlowTest
class FlowControlSlowTest extends FlowControlTest {
}
