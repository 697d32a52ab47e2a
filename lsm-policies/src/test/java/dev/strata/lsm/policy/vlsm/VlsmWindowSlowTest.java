package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.testkit.SlowTest;

/** {@link VlsmWindowTest} over 900 random trees per overlap measure (multiplier 3), in the slow lane only. */
@SlowTest
class VlsmWindowSlowTest extends VlsmWindowTest {
}
