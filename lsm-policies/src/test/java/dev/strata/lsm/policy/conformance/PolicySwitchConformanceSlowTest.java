package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link PolicySwitchConformanceTest} at full size (each registered policy after every predecessor family), in the slow lane only. */
@SlowTest
class PolicySwitchConformanceSlowTest extends PolicySwitchConformanceTest {
}
