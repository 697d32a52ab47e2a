package dev.strata.lsm.server;

import dev.strata.lsm.testkit.SlowTest;

/** {@link NodeCrashTest} at full size (six kills at the slow lane's multiplier 3), in the slow lane only. */
@SlowTest
class NodeCrashSlowTest extends NodeCrashTest {
}
