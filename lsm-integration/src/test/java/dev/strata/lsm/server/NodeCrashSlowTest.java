package dev.strata.lsm.server;

import dev.strata.lsm.testkit.SlowTest;

/** {@link NodeCrashTest} with three kills (multiplier 3), in the slow lane only. */
@SlowTest
class NodeCrashSlowTest extends NodeCrashTest {
}
