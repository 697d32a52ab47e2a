package dev.strata.lsm.policy.space;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link PolicySpaceBoundTest} under all eight policies (the fast lane runs five), in the slow
 * lane only.
 */
@SlowTest
class PolicySpaceBoundSlowTest extends PolicySpaceBoundTest {
}
