package dev.strata.lsm.policies;

import dev.strata.lsm.testkit.SlowTest;

/** {@link PolicyInvariantsTest} at full size (10,000 simulated flushes per case), in the slow lane only. */
@SlowTest
class PolicyInvariantsSlowTest extends PolicyInvariantsTest {
}
