package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.SlowTest;

/** {@link KafkaClusterTakeoverTest} at full size (10,000 lines before and after the takeover), in the slow lane only. */
@SlowTest
class KafkaClusterTakeoverSlowTest extends KafkaClusterTakeoverTest {
}
