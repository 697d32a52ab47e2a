package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link VlsmEngineTraceTest} with 112,500 entries (multiplier 3), in the slow lane only. */
@SlowTest
class VlsmEngineTraceSlowTest extends VlsmEngineTraceTest {
}
