package dev.strata.lsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link ModelBasedStoreTest} at full size (30 histories), in the slow lane only. */
@SlowTest
class ModelBasedStoreSlowTest extends ModelBasedStoreTest {
}
