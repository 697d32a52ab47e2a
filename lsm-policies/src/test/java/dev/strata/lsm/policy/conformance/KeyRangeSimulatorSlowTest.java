package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link KeyRangeSimulatorTest} at full size (every registered policy, 100 flushes times the multiplier per policy and workload; every leveled preset), in the slow lane only. */
@SlowTest
class KeyRangeSimulatorSlowTest extends KeyRangeSimulatorTest {
}
