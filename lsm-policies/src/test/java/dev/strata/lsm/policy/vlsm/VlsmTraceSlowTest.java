package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link VlsmTraceTest} at three times its fast-lane size (900 flushes per run) and with all
 * five runs (the fast lane takes three), in the slow lane only.
 */
@SlowTest
class VlsmTraceSlowTest extends VlsmTraceTest {
}
