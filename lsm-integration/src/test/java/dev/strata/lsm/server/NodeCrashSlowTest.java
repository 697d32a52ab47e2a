package dev.strata.lsm.server;

import dev.strata.lsm.testkit.SlowTest;

/** {@link NodeCrashTest} at full size (twenty kills), in the slow lane only. */
@SlowTest
class NodeCrashSlowTest extends NodeCrashTest {
}
