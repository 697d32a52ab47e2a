package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link VlsmEngineTraceTest} at full size (1,500,000 entries), in the slow lane only. */
@SlowTest
class VlsmEngineTraceSlowTest extends VlsmEngineTraceTest {
}
