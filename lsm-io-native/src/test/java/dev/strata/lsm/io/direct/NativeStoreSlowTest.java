package dev.strata.lsm.io.direct;

import dev.strata.lsm.testkit.SlowTest;

/** {@link NativeStoreTest} at its pre-fast-lane size (4,500 operations per variant over 1,500 keys at multiplier 3), in the slow lane only. */
@SlowTest
class NativeStoreSlowTest extends NativeStoreTest {
}
