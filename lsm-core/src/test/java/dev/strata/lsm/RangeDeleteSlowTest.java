package dev.strata.lsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link RangeDeleteTest} at full size (model phases of 3,000 operations at multiplier 3), in the slow lane only. */
@SlowTest
class RangeDeleteSlowTest extends RangeDeleteTest {
}
