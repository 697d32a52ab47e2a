package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/** {@link StoreConformanceTest} under every registered policy (the fast lane runs one of each family) at its pre-fast-lane size (12,000 operations per policy over 4,000 keys into 32 KiB memtables at multiplier 3), in the slow lane only. */
@SlowTest
class StoreConformanceSlowTest extends StoreConformanceTest {
}
