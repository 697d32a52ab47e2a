package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link StoreConformanceTest} at full size (40,000 operations per policy), in the slow lane only. */
@SlowTest
class StoreConformanceSlowTest extends StoreConformanceTest {
}
