package dev.strata.lsm.fault;

import dev.strata.lsm.testkit.SlowTest;

/** {@link StoreFaultInjectionTest} with 6 fault sites per case and 1,500 writes per run (multiplier 3), in the slow lane only. */
@SlowTest
class StoreFaultInjectionSlowTest extends StoreFaultInjectionTest {
}
