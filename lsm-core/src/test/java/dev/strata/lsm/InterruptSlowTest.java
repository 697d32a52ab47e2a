package dev.strata.lsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link InterruptTest} at full size (1,500 synced or 6,000 puts per writer at multiplier 3), in the slow lane only. */
@SlowTest
class InterruptSlowTest extends InterruptTest {
}
