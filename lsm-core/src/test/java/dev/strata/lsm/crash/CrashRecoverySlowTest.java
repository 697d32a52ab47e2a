package dev.strata.lsm.crash;

import dev.strata.lsm.testkit.SlowTest;

/** {@link CrashRecoveryTest} at full size (40 kills), in the slow lane only. */
@SlowTest
class CrashRecoverySlowTest extends CrashRecoveryTest {
}
