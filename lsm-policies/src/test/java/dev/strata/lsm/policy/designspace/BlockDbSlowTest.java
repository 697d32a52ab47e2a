package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.testkit.SlowTest;

/** {@link BlockDbTest} at full size (4,000 simulated flushes), in the slow lane only. */
@SlowTest
class BlockDbSlowTest extends BlockDbTest {
}
