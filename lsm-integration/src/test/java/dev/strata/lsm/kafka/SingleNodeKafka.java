package dev.strata.lsm.kafka;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.nio.file.Path;

/** The KRaft test cluster the Kafka cluster tests run on: one combined broker and controller. */
final class SingleNodeKafka {
    private SingleNodeKafka() {
    }

    /**
     * Formats and starts a one-node KRaft cluster under {@code dir}, its internal topics
     * (offsets, transaction state) with one partition and one replica, no initial rebalance
     * delay; returns when the broker is ready. The caller closes it.
     */
    static KafkaClusterTestKit start(Path dir) throws Exception {
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBaseDirectory(dir)
                .build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("transaction.state.log.num.partitions", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        return cluster;
    }
}
