package dev.strata.lsm.io.direct;

import dev.strata.lsm.testkit.SlowTest;

/** {@link NativeStoreTest} with 1,800 operations per variant (multiplier 3), in the slow lane only. */
@SlowTest
class NativeStoreSlowTest extends NativeStoreTest {
}
