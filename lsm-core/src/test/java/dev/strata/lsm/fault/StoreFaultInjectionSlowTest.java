package dev.strata.lsm.fault;

import dev.strata.lsm.testkit.SlowTest;

/** {@link StoreFaultInjectionTest} at full size (20 fault sites per case), in the slow lane only. */
@SlowTest
class StoreFaultInjectionSlowTest extends StoreFaultInjectionTest {
}
