package dev.strata.lsm.engine;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link ReuseBlocksTest} with every codec and leaf-encoding pair of
 * {@link ReuseBlocksTest#codecs()} in the tests per codec (the fast lane runs lz4 with
 * prefix-compressed leaves), in the slow lane only.
 */
@SlowTest
class ReuseBlocksSlowTest extends ReuseBlocksTest {
}
