package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link VlsmTraceTest} at full size (3,000 flushes per workload), in the slow lane only. */
@SlowTest
class VlsmTraceSlowTest extends VlsmTraceTest {
}
