package dev.strata.lsm.engine;

import dev.strata.lsm.testkit.SlowTest;

/** {@link BlockCompactionKillTest} at full size (twenty kills, ten held inside a block compaction), in the slow lane only. */
@SlowTest
class BlockCompactionKillSlowTest extends BlockCompactionKillTest {
}
