package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link FamilyConformanceTest} under every registered policy (the fast lane runs one of each
 * family) at three times its fast-lane size, in the slow lane only.
 */
@SlowTest
class FamilyConformanceSlowTest extends FamilyConformanceTest {
}
