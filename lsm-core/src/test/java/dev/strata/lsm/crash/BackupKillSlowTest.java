package dev.strata.lsm.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link BackupKillTest} with more kills, in the slow lane only. */
@SlowTest
class BackupKillSlowTest extends BackupKillTest {
}
