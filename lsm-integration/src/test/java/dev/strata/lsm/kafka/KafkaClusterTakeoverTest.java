package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.SlowTest;
import dev.strata.lsm.testkit.TestScale;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Word count on Strata against a real broker (Kafka's KRaft test kit, in this JVM) with two
 * application instances under exactly-once: one is stopped, the other takes over its
 * partitions, restores their state from the changelog into Strata, and the final counts are
 * exact.
 *
 * <p>Slow lane only ({@code -Pslow}, 3,000 lines before and after the takeover at multiplier 3):
 * the broker, the controller and two Streams instances cost the same whatever the data size,
 * and were one of the largest classes of the fast lane (issue 35). The pieces it strings together
 * are checked in the fast lane without a broker: the DSL store suppliers putting the word
 * count's store on Strata ({@link WordCountTopologyTest}, TopologyTestDriver), the restore
 * callback applying a changelog batch with its offset ({@link StrataKeyValueStoreTest}), and a
 * store restored from its changelog after a wipe ({@code StrataVersionedStoreTest},
 * {@code StrataWindowStoreSegmentsTest}). What only this test checks is Kafka Streams' own
 * task migration and changelog reader driving that restore under exactly-once.
 */
@SlowTest
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaClusterTakeoverTest {
    private static final String INPUT = WordCountTopologyTest.INPUT;
    private static final String OUTPUT = WordCountTopologyTest.OUTPUT;
    private static final String STORE = WordCountTopologyTest.STORE;
    private static final String APP = "strata-word-count";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private KafkaClusterTestKit cluster;
    private final Map<String, KafkaStreams> apps = new HashMap<>();

    @BeforeEach
    void startCluster() throws Exception {
        cluster = SingleNodeKafka.start(dir.resolve("kafka"));
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(INPUT, PARTITIONS, (short) 1),
                    new NewTopic(OUTPUT, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stopAll() throws Exception {
        apps.values().forEach(app -> app.close(Duration.ofSeconds(20)));
        if (cluster != null) {
            cluster.close();
        }
    }

    private KafkaStreams startApp(String instance, StateRestoreListener restoreListener) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(dir.resolve(instance)).toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "localhost:" + (instance.equals("a") ? 1 : 2));

        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        KafkaStreams app = new KafkaStreams(
                WordCountTopologyTest.wordCount(builder, WordCountTopologyTest.materializedByDsl()), props);
        if (restoreListener != null) {
            app.setGlobalStateRestoreListener(restoreListener);
        }
        apps.put(instance, app);
        app.start();
        return app;
    }

    private void produce(List<String> lines, int firstKey) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < lines.size(); i++) {
                producer.send(new ProducerRecord<>(INPUT, Integer.toString(firstKey + i), lines.get(i)));
            }
            producer.flush();
        }
    }

    private static Map<String, Long> count(List<String> lines) {
        Map<String, Long> counts = new TreeMap<>();
        for (String line : lines) {
            for (String word : line.toLowerCase(Locale.ROOT).split("\\W+")) {
                counts.merge(word, 1L, Long::sum);
            }
        }
        return counts;
    }

    /** Reads the committed output until the newest count of each word equals {@code expected}. */
    private void awaitOutput(KafkaConsumer<String, Long> output, Map<String, Long> latest, Map<String, Long> expected) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!latest.equals(expected)) {
            if (System.nanoTime() > deadline) {
                fail("output counts did not reach the expected counts; differing words: " + expected.entrySet().stream()
                        .filter(e -> !e.getValue().equals(latest.get(e.getKey()))).limit(10)
                        .map(e -> e.getKey() + " expected " + e.getValue() + " got " + latest.get(e.getKey()))
                        .collect(Collectors.joining(", ")));
            }
            for (ConsumerRecord<String, Long> r : output.poll(Duration.ofMillis(200))) {
                latest.put(r.key(), r.value());
            }
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting until " + what);
            }
            Thread.sleep(100);
        }
    }

    /** The partitions of the counting sub-topology (the one with the store) the app runs. */
    private static Set<Integer> countTasks(KafkaStreams app) {
        return app.metadataForLocalThreads().stream()
                .map(ThreadMetadata::activeTasks).flatMap(Set::stream)
                .map(TaskMetadata::taskId).filter(id -> id.subtopology() == 1).map(TaskId::partition)
                .collect(Collectors.toSet());
    }

    @Test
    void theSurvivingInstanceRestoresTheStoppedOnesPartitionsIntoStrataAndCountsExactly() throws Exception {
        // 1,000 lines per half times the multiplier: 3,000 in the slow lane.
        List<String> first = WordCountTopologyTest.lines(1L, TestScale.scaled(1000));
        List<String> second = WordCountTopologyTest.lines(2L, TestScale.scaled(1000));
        Map<TopicPartition, Long> restoredByA = new ConcurrentHashMap<>();
        StateRestoreListener listener = new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String storeName, long startOffset, long endOffset) {
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset,
                                        long numRestored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
                if (storeName.equals(STORE)) {
                    restoredByA.merge(partition, totalRestored, Long::sum);
                }
            }
        };

        produce(first, 0);
        KafkaStreams a = startApp("a", listener);
        KafkaStreams b = startApp("b", null);
        await("both instances run", () -> a.state() == KafkaStreams.State.RUNNING
                && b.state() == KafkaStreams.State.RUNNING && !countTasks(a).isEmpty() && !countTasks(b).isEmpty());

        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "verifier");
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, Long> output =
                     new KafkaConsumer<>(consumerProps, new StringDeserializer(), new LongDeserializer())) {
            output.subscribe(List.of(OUTPUT));
            Map<String, Long> latest = new TreeMap<>();
            awaitOutput(output, latest, count(first));

            Set<Integer> takenOver = countTasks(b);
            assertFalse(takenOver.isEmpty());
            restoredByA.clear();
            assertTrue(b.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30))));
            apps.remove("b");

            await("instance a runs every partition", () -> a.state() == KafkaStreams.State.RUNNING
                    && countTasks(a).size() == PARTITIONS);
            for (int p : takenOver) {
                TopicPartition changelog = new TopicPartition(APP + "-" + STORE + "-changelog", p);
                assertTrue(restoredByA.getOrDefault(changelog, 0L) > 0,
                        "a restored " + changelog + " from the changelog: " + restoredByA);
                try (var dirs = Files.walk(dir.resolve("a"))) {
                    assertTrue(dirs.anyMatch(path -> path.endsWith(Path.of("1_" + p, "strata", STORE))),
                            "task 1_" + p + " of a keeps its store in Strata");
                }
            }

            produce(second, first.size());
            List<String> all = new java.util.ArrayList<>(first);
            all.addAll(second);
            Map<String, Long> expected = count(all);
            awaitOutput(output, latest, expected);
            assertEquals(expected, latest);

            // The store itself, through IQv2 on the surviving instance, holds the same counts.
            Map<String, Long> queried = new TreeMap<>();
            StateQueryResult<KeyValueIterator<String, Long>> result = a.query(
                    StateQueryRequest.inStore(STORE).withQuery(RangeQuery.<String, Long>withNoBounds()));
            for (QueryResult<KeyValueIterator<String, Long>> partResult : result.getPartitionResults().values()) {
                assertTrue(partResult.isSuccess(), partResult.toString());
                try (KeyValueIterator<String, Long> it = partResult.getResult()) {
                    while (it.hasNext()) {
                        KeyValue<String, Long> kv = it.next();
                        queried.put(kv.key, kv.value);
                    }
                }
            }
            assertEquals(PARTITIONS, result.getPartitionResults().size());
            assertEquals(expected, queried);
        }
    }
}
