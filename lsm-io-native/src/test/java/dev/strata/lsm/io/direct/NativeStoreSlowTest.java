package dev.strata.lsm.io.direct;

import dev.strata.lsm.testkit.SlowTest;

/** {@link NativeStoreTest} at full size (15,000 operations per variant), in the slow lane only. */
@SlowTest
class NativeStoreSlowTest extends NativeStoreTest {
}
