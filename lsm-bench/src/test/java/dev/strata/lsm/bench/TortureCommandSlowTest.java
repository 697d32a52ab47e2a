package dev.strata.lsm.bench;

import dev.strata.lsm.testkit.SlowTest;

/** {@link TortureCommandTest} at full size (the short run lasts a minute), in the slow lane only. */
@SlowTest
class TortureCommandSlowTest extends TortureCommandTest {
}
