package dev.strata.lsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link MergeOperatorTest} at full size (4,500 operations a phase at multiplier 3), in the slow lane only. */
@SlowTest
class MergeOperatorSlowTest extends MergeOperatorTest {
}
