package dev.strata.lsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link ModelBasedStoreTest} at full size (9 histories of 3,000 operations at multiplier 3), in the slow lane only. */
@SlowTest
class ModelBasedStoreSlowTest extends ModelBasedStoreTest {
}
