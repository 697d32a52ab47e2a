package dev.strata.lsm.bench.engine;

import dev.strata.lsm.testkit.SlowTest;

/** {@link BenchEngineTest} in the slow lane: the vlsm census over 18,000 entries (multiplier 3). */
@SlowTest
class BenchEngineSlowTest extends BenchEngineTest {
}
