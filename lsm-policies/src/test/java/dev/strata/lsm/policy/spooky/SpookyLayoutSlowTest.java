package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.testkit.SlowTest;

/** {@link SpookyLayoutTest} at full size (3,000 flushes per simulated run), in the slow lane only. */
@SlowTest
class SpookyLayoutSlowTest extends SpookyLayoutTest {
}
