package dev.strata.lsm.kafka;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * A windowed count and a session count over the same events under {@link TopologyTestDriver},
 * with the DSL store suppliers class given: what {@link SegmentedTopologyTest} runs, each
 * run in a class loader of its own. Returns JDK types only (the caller's loader is another):
 * "windows" and "sessions", the output topics' records in order as "key@window=count" strings
 * (a null count is a deleted session); "windowStore" and "sessionStore", the stores'
 * contents read through the driver at the end; "windowSegments" and "sessionSegments", the
 * Strata segment directories then, and "files", every file of the task directory.
 */
public final class SegmentedTopologyRun implements Callable<Map<String, List<String>>> {
    static final String INPUT = "events";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final String stateDir;
    private final String dslStoreSuppliers;
    private final long seed;
    private final int events;

    /**
     * {@code events} events over the same span of event time (about 35 minutes) whatever their
     * number, so the windows, sessions and segments made and expired stay the same in kind.
     */
    public SegmentedTopologyRun(String stateDir, String dslStoreSuppliers, long seed, int events) {
        this.stateDir = stateDir;
        this.dslStoreSuppliers = dslStoreSuppliers;
        this.seed = seed;
        this.events = events;
    }

    @Override
    public Map<String, List<String>> call() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "segmented");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, dslStoreSuppliers);
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        KGroupedStream<String, String> grouped = builder.<String, String>stream(INPUT).groupByKey();
        grouped.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofSeconds(30)))
                .count(Materialized.as("window-counts"))
                .toStream((w, c) -> w.key() + "@" + w.window().start())
                .to("window-out", Produced.with(Serdes.String(), Serdes.Long()));
        grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(20), Duration.ofSeconds(10)))
                .count(Materialized.as("session-counts"))
                .toStream((w, c) -> w.key() + "@" + w.window().start() + "-" + w.window().end())
                .to("session-out", Produced.with(Serdes.String(), Serdes.Long()));

        Map<String, List<String>> result = new LinkedHashMap<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            TestInputTopic<String, String> in = driver.createInputTopic(INPUT, new StringSerializer(),
                    new StringSerializer());
            TestOutputTopic<String, Long> windows = driver.createOutputTopic("window-out", new StringDeserializer(),
                    new LongDeserializer());
            TestOutputTopic<String, Long> sessions = driver.createOutputTopic("session-out",
                    new StringDeserializer(), new LongDeserializer());
            Random random = new Random(seed);
            long t = 0;
            int step = 4_000 * 1_000 / events;
            for (int i = 0; i < events; i++) {
                // mostly forward in time, some records late (within and past the grace periods)
                t += random.nextInt(step);
                long time = random.nextInt(10) == 0 ? Math.max(0, t - random.nextInt(90_000)) : t;
                in.pipeInput("k" + random.nextInt(12), "v", T0.plusMillis(time));
            }
            result.put("windows", records(windows.readKeyValuesToList()));
            result.put("sessions", records(sessions.readKeyValuesToList()));

            WindowStore<String, Long> windowStore = driver.getWindowStore("window-counts");
            List<String> contents = new ArrayList<>();
            try (KeyValueIterator<Windowed<String>, Long> it = windowStore.all()) {
                it.forEachRemaining(kv -> contents.add(kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value));
            }
            contents.sort(null);
            result.put("windowStore", contents);

            SessionStore<String, Long> sessionStore = driver.getSessionStore("session-counts");
            List<String> sessionContents = new ArrayList<>();
            for (int k = 0; k < 12; k++) {
                try (KeyValueIterator<Windowed<String>, Long> it = sessionStore.fetch("k" + k)) {
                    it.forEachRemaining(kv -> sessionContents.add(kv.key.key() + "@" + kv.key.window().start() + "-"
                            + kv.key.window().end() + "=" + kv.value));
                }
            }
            result.put("sessionStore", sessionContents);
            // what is on disk before the driver closes (closing deletes the state directory)
            java.nio.file.Path task = java.nio.file.Path.of(stateDir, "segmented", "0_0");
            result.put("windowSegments", dirs(task.resolve("strata").resolve("window-counts")));
            result.put("sessionSegments", dirs(task.resolve("strata").resolve("session-counts")));
            try (java.util.stream.Stream<java.nio.file.Path> all = java.nio.file.Files.isDirectory(task)
                    ? java.nio.file.Files.walk(task) : java.util.stream.Stream.empty()) {
                result.put("files", all.map(p -> task.relativize(p).toString()).sorted().toList());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return result;
    }

    /** The subdirectories of {@code dir}, sorted; empty when it does not exist. */
    private static List<String> dirs(java.nio.file.Path dir) {
        if (!java.nio.file.Files.isDirectory(dir)) {
            return List.of();
        }
        try (java.util.stream.Stream<java.nio.file.Path> entries = java.nio.file.Files.list(dir)) {
            return entries.filter(java.nio.file.Files::isDirectory).map(p -> p.getFileName().toString()).sorted()
                    .toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> records(List<KeyValue<String, Long>> records) {
        List<String> out = new ArrayList<>();
        for (KeyValue<String, Long> kv : records) {
            out.add(kv.key + "=" + kv.value);
        }
        return out;
    }
}
