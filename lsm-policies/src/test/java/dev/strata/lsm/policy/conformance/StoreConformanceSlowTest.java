package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link StoreConformanceTest} at three times its fast-lane size (4,500 operations per policy at multiplier 3), in the slow lane only. */
@SlowTest
class StoreConformanceSlowTest extends StoreConformanceTest {
}
