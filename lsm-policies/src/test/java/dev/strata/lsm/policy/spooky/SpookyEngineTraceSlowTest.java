package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.testkit.SlowTest;

/** {@link SpookyEngineTraceTest} at full size (3,500,000 entries), in the slow lane only. */
@SlowTest
class SpookyEngineTraceSlowTest extends SpookyEngineTraceTest {
}
