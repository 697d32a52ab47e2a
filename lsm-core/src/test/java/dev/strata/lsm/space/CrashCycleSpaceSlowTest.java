package dev.strata.lsm.space;

import dev.strata.lsm.testkit.SlowTest;

/** {@link CrashCycleSpaceTest} at full size (60 and 24 crash cycles at multiplier 3), in the slow lane only. */
@SlowTest
class CrashCycleSpaceSlowTest extends CrashCycleSpaceTest {
}
