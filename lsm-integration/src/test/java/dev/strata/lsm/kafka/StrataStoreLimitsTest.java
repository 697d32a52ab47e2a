package dev.strata.lsm.kafka;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record over the store's limits fails at put with a {@link ProcessorStateException} naming
 * the size and the limit, and changes nothing: later records, commits, close and a new init
 * work (issue 29: one oversized record wedged the store for good). Also the key-count estimate.
 */
class StrataStoreLimitsTest {
    private static final TopicPartition CHANGELOG_0 = new TopicPartition("app-counts-changelog", 0);

    @TempDir
    Path stateDir;

    private final List<StrataKeyValueStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(StrataKeyValueStore::close);
    }

    private StrataKeyValueStore open() {
        StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts").get();
        store.init(new TestStoreContext(stateDir.toFile(), 0, false), store);
        opened.add(store);
        return store;
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anOversizedKeyFailsAtPutAndChangesNothing() {
        StrataKeyValueStore store = open();
        store.put(key("good"), value("1"));
        ProcessorStateException e = assertThrows(ProcessorStateException.class,
                () -> store.put(Bytes.wrap(new byte[992]), value("x")));
        assertTrue(e.getMessage().contains("992") && e.getMessage().contains("991"), e.getMessage());
        assertThrows(ProcessorStateException.class, () -> store.putIfAbsent(Bytes.wrap(new byte[2000]), value("x")));
        // putAll with one bad record applies none of them.
        assertThrows(ProcessorStateException.class, () -> store.putAll(List.of(
                KeyValue.pair(key("a"), value("2")), KeyValue.pair(Bytes.wrap(new byte[992]), value("x")))));
        assertNull(store.get(key("a")));
        assertNull(store.get(Bytes.wrap(new byte[992])));
        // The largest key fits.
        store.put(Bytes.wrap(new byte[991]), value("max"));
        for (int i = 0; i < 5; i++) {
            store.put(key("later" + i), value("v" + i));
        }
        store.commit(Map.of(CHANGELOG_0, 10L));
        store.commit(Map.of(CHANGELOG_0, 11L));
        assertEquals(11L, store.committedOffset(CHANGELOG_0));
        store.close();
        StrataKeyValueStore reopened = open();
        assertArrayEquals(value("1"), reopened.get(key("good")));
        assertArrayEquals(value("max"), reopened.get(Bytes.wrap(new byte[991])));
        assertArrayEquals(value("v4"), reopened.get(key("later4")));
    }

    @Test
    void anOversizedValueFailsAtPutAndChangesNothing() {
        StrataKeyValueStore store = open();
        int limit = 64 << 20;
        ProcessorStateException e = assertThrows(ProcessorStateException.class,
                () -> store.put(key("big"), new byte[limit + 1]));
        assertTrue(e.getMessage().contains(String.valueOf(limit + 1)) && e.getMessage().contains(String.valueOf(limit)),
                e.getMessage());
        for (int i = 0; i < 5; i++) {
            store.put(key("small" + i), value("v" + i));
        }
        store.commit(Map.of(CHANGELOG_0, 3L));
        store.close();
        StrataKeyValueStore reopened = open();
        assertNull(reopened.get(key("big")));
        assertArrayEquals(value("v4"), reopened.get(key("small4")));
    }

    @Test
    void initStartsWithoutWritesLeftFromBeforeAClose() {
        StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts").get();
        opened.add(store);
        TestStoreContext context = new TestStoreContext(stateDir.toFile(), 0, false);
        store.init(context, store);
        store.put(key("kept"), value("1"));
        store.commit(Map.of(CHANGELOG_0, 1L));
        store.put(key("uncommitted"), value("2"));
        store.close();
        // Kafka's recovery path: the state directory is wiped and the same store object is initialized again.
        deleteRecursively(stateDir.resolve("strata"));
        store.init(context, store);
        assertNull(store.get(key("uncommitted")));
        assertNull(store.get(key("kept")));
        assertEquals(0, store.approximateNumEntries());
    }

    @Test
    void oversizedKeyUnderTopologyTestDriverFailsThatRecordOnly() throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
                .toTable(Materialized.<String, String>as(StrataStores.persistentKeyValueStore("latest"))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
                .toStream().to("out", Produced.with(Serdes.String(), Serdes.String()));
        Topology topology = builder.build();
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "limits");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir.resolve("driver")).toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props)) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, String> out = driver.createOutputTopic("out", new StringDeserializer(),
                    new StringDeserializer());
            in.pipeInput("before", "1");
            RuntimeException e = assertThrows(RuntimeException.class, () -> in.pipeInput("k".repeat(2000), "x"));
            assertTrue(causes(e, ProcessorStateException.class), "not a ProcessorStateException: " + e);
            for (int i = 0; i < 10; i++) {
                in.pipeInput("after" + i, "v" + i);
            }
            assertEquals(11, out.readKeyValuesToList().size());
            Object stored = driver.<String, Object>getKeyValueStore("latest").get("after9");
            assertEquals("v9", stored instanceof org.apache.kafka.streams.state.ValueAndTimestamp<?> vt ? vt.value() : stored);
        }
    }

    @Test
    void approximateNumEntriesIsWithinAQuarterOfTheKeyCount() {
        StrataKeyValueStore store = open();
        int keys = 50_000;
        for (int i = 0; i < keys; i++) {
            store.put(Bytes.wrap(ByteBuffer.allocate(8).putLong(i).array()), new byte[] {(byte) i});
        }
        store.commit(Map.of(CHANGELOG_0, 1L));
        long estimate = store.approximateNumEntries();
        assertTrue(Math.abs(estimate - keys) <= keys / 4, "estimate " + estimate + " for " + keys + " keys");
        store.close();
        StrataKeyValueStore reopened = open();
        estimate = reopened.approximateNumEntries();
        assertTrue(Math.abs(estimate - keys) <= keys / 4, "after reopen: estimate " + estimate + " for " + keys + " keys");
    }

    private static boolean causes(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static void deleteRecursively(Path p) {
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
