package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link CheckpointConformanceTest} at three times its fast-lane size (a checkpoint every 1,875
 * writes, 24 KiB memtables, at multiplier 3) and under every registered policy (the fast lane
 * runs one of each family), in the slow lane only.
 */
@SlowTest
class CheckpointConformanceSlowTest extends CheckpointConformanceTest {
}
