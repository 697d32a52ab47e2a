package dev.strata.lsm.policy.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link PolicyKillTest} at full size (one kill per policy times the multiplier, all five policies), in the slow lane only. */
@SlowTest
class PolicyKillSlowTest extends PolicyKillTest {
}
