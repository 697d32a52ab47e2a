package dev.strata.lsm.kafka;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Word count under {@link TopologyTestDriver}: Strata gives the counts the in-memory store gives. */
class WordCountTopologyTest {
    static final String INPUT = "lines";
    static final String OUTPUT = "word-counts";
    static final String STORE = "counts";

    @TempDir
    Path stateDir;

    /** Lines of words from a small vocabulary, so that words repeat; the seed is printed. */
    static List<String> lines(long seed, int count) {
        System.out.println("WordCountTopologyTest lines seed=" + seed);
        Random random = new Random(seed);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder line = new StringBuilder();
            int words = 1 + random.nextInt(8);
            for (int w = 0; w < words; w++) {
                line.append(w == 0 ? "" : " ").append(random.nextBoolean() ? "Word" : "word").append(random.nextInt(200));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** The word-count topology of the Kafka Streams quick start, its table materialized as given. */
    static Topology wordCount(Materialized<String, Long, KeyValueStore<Bytes, byte[]>> materialized) {
        return wordCount(new StreamsBuilder(), materialized);
    }

    /** The word-count topology built with {@code builder} (which may carry a topology config). */
    static Topology wordCount(StreamsBuilder builder, Materialized<String, Long, KeyValueStore<Bytes, byte[]>> materialized) {
        builder.<String, String>stream(INPUT)
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(materialized)
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** The count table as a store named {@link #STORE} whose supplier the DSL store suppliers choose. */
    static Materialized<String, Long, KeyValueStore<Bytes, byte[]>> materializedByDsl() {
        return Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE)
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long());
    }

    static Materialized<String, Long, KeyValueStore<Bytes, byte[]>> materializedBy(KeyValueBytesStoreSupplier supplier) {
        return Materialized.<String, Long>as(supplier).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long());
    }

    private Properties config(String appId) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir.resolve(appId)).toString());
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        return props;
    }

    /** Runs the lines through the topology; returns the final count per word from the output topic and the store. */
    private Map<String, Long> run(Topology topology, Properties props, List<String> lines, Map<String, Long> fromStore) {
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props)) {
            TestInputTopic<String, String> in = driver.createInputTopic(INPUT, new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, Long> out = driver.createOutputTopic(OUTPUT, new StringDeserializer(), new LongDeserializer());
            for (String line : lines) {
                in.pipeInput(null, line);
            }
            KeyValueStore<String, ValueAndTimestamp<Long>> store = driver.getTimestampedKeyValueStore(STORE);
            try (KeyValueIterator<String, ValueAndTimestamp<Long>> it = store.all()) {
                while (it.hasNext()) {
                    KeyValue<String, ValueAndTimestamp<Long>> kv = it.next();
                    fromStore.put(kv.key, kv.value.value());
                }
            }
            strataDirectories = strataStoreDirectories(Path.of(props.getProperty(StreamsConfig.STATE_DIR_CONFIG)));
            return new TreeMap<>(out.readKeyValuesToMap());
        }
    }

    /** Strata stores named {@link #STORE} found under the state directory while the driver ran. */
    private long strataDirectories;

    private static long strataStoreDirectories(Path stateDir) {
        try (var dirs = Files.walk(stateDir)) {
            return dirs.filter(p -> p.endsWith(Path.of("strata", STORE)) && Files.isDirectory(p)).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void strataCountsEqualInMemoryCounts() throws Exception {
        List<String> lines = lines(20261122L, 2000);
        Map<String, Long> memoryStore = new TreeMap<>();
        Map<String, Long> memory = run(wordCount(materializedBy(Stores.inMemoryKeyValueStore(STORE))),
                config("memory"), lines, memoryStore);
        Map<String, Long> strataStore = new TreeMap<>();
        Map<String, Long> strata = run(wordCount(materializedBy(StrataStores.persistentKeyValueStore(STORE))),
                config("strata"), lines, strataStore);

        assertEquals(200, memory.size(), "every word of the vocabulary was counted");
        assertEquals(memory, strata);
        assertEquals(memoryStore, strataStore);
        assertEquals(memory, memoryStore);
        assertEquals(1, strataDirectories, "the Strata store lives under the task's state directory");
    }

    @Test
    void dslStoreSuppliersPutTheTopologysTimestampedStoreOnStrata() throws Exception {
        List<String> lines = lines(7L, 500);
        Map<String, Long> memoryStore = new TreeMap<>();
        Map<String, Long> memory = run(wordCount(materializedBy(Stores.inMemoryKeyValueStore(STORE))),
                config("memory-dsl"), lines, memoryStore);
        assertEquals(0, strataDirectories);

        Properties props = config("strata-dsl");
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
        StreamsBuilder builder = new StreamsBuilder(new org.apache.kafka.streams.TopologyConfig(new StreamsConfig(props)));
        Map<String, Long> strataStore = new TreeMap<>();
        Map<String, Long> strata = run(wordCount(builder, materializedByDsl()), props, lines, strataStore);

        assertEquals(memory, strata);
        assertEquals(memoryStore, strataStore);
        assertEquals(1, strataDirectories, "the DSL store was created by Strata");
    }

    @Test
    void dslStoreSuppliersPutWindowStoresOnStrata() throws Exception {
        Properties props = config("strata-windows");
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
        StreamsBuilder builder = new StreamsBuilder(new org.apache.kafka.streams.TopologyConfig(new StreamsConfig(props)));
        builder.<String, String>stream(INPUT)
                .groupByKey()
                .windowedBy(org.apache.kafka.streams.kstream.TimeWindows.ofSizeWithNoGrace(java.time.Duration.ofMinutes(1)))
                .count(Materialized.as("window-counts"))
                .toStream((window, count) -> window.key() + "@" + window.window().start())
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            TestInputTopic<String, String> in = driver.createInputTopic(INPUT, new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, Long> out = driver.createOutputTopic(OUTPUT, new StringDeserializer(), new LongDeserializer());
            java.time.Instant t0 = java.time.Instant.parse("2026-01-01T00:00:00Z");
            in.pipeInput("a", "x", t0);
            in.pipeInput("a", "x", t0.plusSeconds(30));
            in.pipeInput("b", "x", t0.plusSeconds(10));
            in.pipeInput("a", "x", t0.plusSeconds(90));
            assertEquals(Map.of("a@" + t0.toEpochMilli(), 2L, "a@" + t0.plusSeconds(60).toEpochMilli(), 1L,
                    "b@" + t0.toEpochMilli(), 1L), out.readKeyValuesToMap());
            List<String> files;
            try (var dirs = Files.walk(stateDir.resolve("strata-windows"))) {
                files = dirs.map(p -> stateDir.relativize(p).toString()).toList();
            }
            String segments = "strata" + java.io.File.separator + "window-counts" + java.io.File.separator;
            assertTrue(files.stream().anyMatch(f -> f.contains(segments + t0.toEpochMilli())),
                    "Strata holds the window store, a segment per minute: " + files);
            assertTrue(files.stream().noneMatch(f -> f.contains("rocksdb") || f.contains("window-counts.")),
                    "RocksDB holds nothing (its segments would be window-counts.<start>): " + files);
        }
    }
}
