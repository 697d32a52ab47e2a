package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engine's figures as Kafka Streams state-store metrics ({@link StrataMetricsRecorder}). */
class StrataMetricsTest {
    static final String GROUP = "stream-state-metrics";
    static final String STATE_ID = "strata-state-id";

    @TempDir
    Path dir;

    /** The value of metric {@code name} of store {@code store} in task {@code task}, or null when absent. */
    static Object value(Map<MetricName, ? extends Metric> metrics, String task, String store, String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName n = e.getKey();
            if (n.group().equals(GROUP) && n.name().equals(name) && task.equals(n.tags().get("task-id"))
                    && store.equals(n.tags().get(STATE_ID))) {
                return e.getValue().metricValue();
            }
        }
        return null;
    }

    static Set<String> strataMetricTasks(Map<MetricName, ? extends Metric> metrics, String store) {
        return metrics.keySet().stream()
                .filter(n -> n.group().equals(GROUP) && store.equals(n.tags().get(STATE_ID)))
                .map(n -> n.tags().get("task-id")).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void twoTasksStoresOfOneNameHaveTheirOwnMetricsAndCloseRemovesOnlyTheirs() throws Exception {
        Metrics registry = new Metrics();
        StreamsMetricsImpl streamsMetrics = new StreamsMetricsImpl(registry, "client", Time.SYSTEM);
        StrataKeyValueStore[] stores = new StrataKeyValueStore[2];
        int[] counts = {50, 300};
        for (int p = 0; p < 2; p++) {
            TestStoreContext ctx = new TestStoreContext(Files.createDirectories(dir.resolve("t" + p)).toFile(), p, false);
            ctx.metrics = streamsMetrics;
            stores[p] = new StrataKeyValueStore("counts", StrataStores.DEFAULT_CONFIG);
            stores[p].init(ctx, stores[p]);
            for (int i = 0; i < counts[p]; i++) {
                stores[p].put(Bytes.wrap(("key-" + i).getBytes()), new byte[100]);
            }
            // The write buffer's bytes are read live: the uncommitted values, before any commit.
            Object buffered = value(registry.metrics(), "0_" + p, "counts", "write-buffer-bytes");
            assertEquals((double) stores[p].bufferedBytes(), buffered);
            assertTrue((Double) buffered >= counts[p] * 100, "write-buffer-bytes " + buffered);
            waitForSnapshotInterval();
            stores[p].commit(Map.of());
            assertEquals(0.0, value(registry.metrics(), "0_" + p, "counts", "write-buffer-bytes"));
        }
        Map<MetricName, ? extends Metric> m = registry.metrics();
        assertEquals(Set.of("0_0", "0_1"), strataMetricTasks(m, "counts"));
        double written0 = (Double) value(m, "0_0", "counts", "bytes-written-total");
        double written1 = (Double) value(m, "0_1", "counts", "bytes-written-total");
        assertTrue(written0 >= 50 * 100, "task 0_0 wrote its 50 values: " + written0);
        assertTrue(written1 >= 300 * 100, "task 0_1 wrote its 300 values: " + written1);
        assertTrue(written1 > written0);
        assertEquals(50.0 + 2, (Double) value(m, "0_0", "counts", "estimate-num-keys"), 2.0);
        assertEquals(300.0 + 2, (Double) value(m, "0_1", "counts", "estimate-num-keys"), 2.0);
        assertTrue((Double) value(m, "0_1", "counts", "bytes-written-rate") > 0);
        for (String name : new String[] {"bytes-read-rate", "bytes-read-total", "memtable-bytes-flushed-rate",
                "memtable-bytes-flushed-total", "block-cache-data-hit-ratio", "write-stall-duration-avg",
                "write-stall-duration-total", "number-open-files", "compaction-time-avg", "compaction-time-max",
                "write-amplification", "space-amplification", "components-per-level"}) {
            assertNotNull(value(m, "0_0", "counts", name), name);
        }
        // The default configuration names no policy: the gauge reports the one the new store chose.
        assertFalse(StrataStores.DEFAULT_CONFIG.mergePolicyNamed());
        assertEquals(dev.strata.lsm.StoreConfig.NEW_STORE_MERGE_POLICY, value(m, "0_0", "counts", "merge-policy"));
        MetricName any = m.keySet().stream().filter(n -> "0_0".equals(n.tags().get("task-id"))
                && n.group().equals(GROUP)).findFirst().orElseThrow();
        assertEquals(Set.of("thread-id", "task-id", STATE_ID), any.tags().keySet());

        stores[0].close();
        assertEquals(Set.of("0_1"), strataMetricTasks(registry.metrics(), "counts"));
        stores[1].close();
        assertEquals(Set.of(), strataMetricTasks(registry.metrics(), "counts"));
        registry.close();
    }

    @Test
    void flushedTablesShowInFlushFilesAndHitRatio() throws Exception {
        Metrics registry = new Metrics();
        TestStoreContext ctx = new TestStoreContext(dir.toFile(), 0, false);
        ctx.metrics = new StreamsMetricsImpl(registry, "client", Time.SYSTEM);
        // Small memtables: the writes flush to tables, which gets then read through the cache.
        StoreConfig config = StrataStores.DEFAULT_CONFIG.toBuilder().memtableBytes(64 << 10).build();
        StrataKeyValueStore store = new StrataKeyValueStore("s", config, 16 << 10);
        store.init(ctx, store);
        for (int i = 0; i < 2000; i++) {
            store.put(Bytes.wrap(TestKeys.padded("key-", i, 5).getBytes()), new byte[200]);
        }
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 2000; i += 7) {
                assertNotNull(store.get(Bytes.wrap(TestKeys.padded("key-", i, 5).getBytes())));
            }
        }
        waitForSnapshotInterval();
        store.commit(Map.of());
        Map<MetricName, ? extends Metric> m = registry.metrics();
        assertTrue((Double) value(m, "0_0", "s", "memtable-bytes-flushed-total") > 0);
        assertTrue((Double) value(m, "0_0", "s", "number-open-files") >= 1);
        double hitRatio = (Double) value(m, "0_0", "s", "block-cache-data-hit-ratio");
        assertTrue(hitRatio > 0 && hitRatio <= 1, "second reads hit the cache: " + hitRatio);
        store.close();
        registry.close();
    }

    private static void waitForSnapshotInterval() throws InterruptedException {
        Thread.sleep(StrataMetricsRecorder.SNAPSHOT_INTERVAL_MS + 50);
    }

    private Properties props(String appId) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(dir.resolve(appId)).toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
        return props;
    }

    @Test
    void topologyTestDriverSeesKeyValueAndWindowStoreMetricsUntilClose() throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        var grouped = builder.stream("in", org.apache.kafka.streams.kstream.Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey(Grouped.with(Serdes.String(), Serdes.String()));
        grouped.count(Materialized.as("counts"));
        grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1))).count(Materialized.as("windowed"));
        TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props("metrics-app"));
        TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer(),
                Instant.ofEpochMilli(0), Duration.ofSeconds(7));
        for (int i = 0; i < 500; i++) {
            in.pipeInput("k" + (i % 100), "v");
        }
        waitForSnapshotInterval();
        in.pipeInput("k0", "v");  // its commit takes the snapshot
        Map<MetricName, ? extends Metric> m = driver.metrics();
        for (String store : new String[] {"counts", "windowed"}) {
            assertEquals(Set.of("0_0"), strataMetricTasks(m, store), store);
            assertTrue((Double) value(m, "0_0", store, "bytes-written-total") > 0, store);
            assertTrue((Double) value(m, "0_0", store, "estimate-num-keys") > 0, store);
        }
        // Stream time is past 58 one-minute windows; the store keeps the live segments' records only.
        double windowKeys = (Double) value(m, "0_0", "windowed", "estimate-num-keys");
        assertTrue(windowKeys > 0 && windowKeys < 500, "records of the live segments: " + windowKeys);
        driver.close();
        Map<MetricName, ? extends Metric> after = driver.metrics();
        assertTrue(strataMetricTasks(after, "counts").isEmpty());
        assertTrue(strataMetricTasks(after, "windowed").isEmpty());
        assertFalse(after.keySet().stream().anyMatch(n -> n.tags().containsKey(STATE_ID)));
    }
}
