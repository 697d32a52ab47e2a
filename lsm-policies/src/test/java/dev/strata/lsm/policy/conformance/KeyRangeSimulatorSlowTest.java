package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link KeyRangeSimulatorTest} at full size (1,000 flushes per policy and workload), in the slow lane only. */
@SlowTest
class KeyRangeSimulatorSlowTest extends KeyRangeSimulatorTest {
}
