package dev.strata.lsm.policies;

import dev.strata.lsm.testkit.SlowTest;

/** {@link EngineVersusSimulatorTest} at full size (400 flushes per policy), in the slow lane only. */
@SlowTest
class EngineVersusSimulatorSlowTest extends EngineVersusSimulatorTest {
}
