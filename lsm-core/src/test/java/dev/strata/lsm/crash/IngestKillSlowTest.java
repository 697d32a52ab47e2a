package dev.strata.lsm.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link IngestKillTest} with more kills and larger rounds, in the slow lane only. */
@SlowTest
class IngestKillSlowTest extends IngestKillTest {
}
