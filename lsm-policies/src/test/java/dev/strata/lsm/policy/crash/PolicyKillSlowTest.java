package dev.strata.lsm.policy.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link PolicyKillTest} at full size (ten kills per policy), in the slow lane only. */
@SlowTest
class PolicyKillSlowTest extends PolicyKillTest {
}
