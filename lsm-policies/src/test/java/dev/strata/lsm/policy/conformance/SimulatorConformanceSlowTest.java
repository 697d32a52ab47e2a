package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link SimulatorConformanceTest} at full size (2,500 flushes per case), in the slow lane only. */
@SlowTest
class SimulatorConformanceSlowTest extends SimulatorConformanceTest {
}
