package dev.strata.lsm.bench;

import dev.strata.lsm.testkit.SlowTest;

/** {@link TortureCommandTest} with the short run at 10.8 s (multiplier 3), in the slow lane only. */
@SlowTest
class TortureCommandSlowTest extends TortureCommandTest {
}
