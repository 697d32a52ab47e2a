package dev.strata.lsm.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link ReaderTortureTest} with more writer kills and longer runs, in the slow lane only. */
@SlowTest
class ReaderTortureSlowTest extends ReaderTortureTest {
}
