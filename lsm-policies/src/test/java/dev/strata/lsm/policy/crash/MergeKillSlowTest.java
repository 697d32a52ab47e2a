package dev.strata.lsm.policy.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link MergeKillTest} with three kills inside each kind of merge (multiplier 3), in the slow lane only. */
@SlowTest
class MergeKillSlowTest extends MergeKillTest {
}
