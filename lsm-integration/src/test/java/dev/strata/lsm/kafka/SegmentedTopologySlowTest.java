package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.SlowTest;

/** {@link SegmentedTopologyTest} with 1,200 events per run (multiplier 3), in the slow lane only. */
@SlowTest
class SegmentedTopologySlowTest extends SegmentedTopologyTest {
}
