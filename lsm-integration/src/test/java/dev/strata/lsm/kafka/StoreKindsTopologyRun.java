package dev.strata.lsm.kafka;

import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * A topology with a store of every kind the DSL makes, under {@link TopologyTestDriver} with
 * the DSL store suppliers class given: a count per key (timestamped key-value store), a
 * windowed count and a session aggregate that emit on window close (time-ordered window and
 * session stores), a windowed count and a session count that emit every update (window and
 * session stores), and a stream-stream left join (its window stores, which keep duplicates,
 * and its outer-join key-value store). With {@code headers} the application sets
 * {@code dsl.store.format=headers} (KIP-1271), so every one of them is in the headers format.
 * What {@link StoreKindsTopologyTest} runs, also in a class loader of its own, so it returns
 * JDK types only: per output topic (its name) the records in order as "key=value" strings; per
 * named store ("store:" + name) the class of the innermost store under Kafka's wrappers and
 * ("outer:" + name) the class of the outermost, the metered store its builder made, and
 * ("chain:" + name) the classes from the outermost to the innermost; and
 * "files", every file of the task directory before the driver closes.
 */
public final class StoreKindsTopologyRun implements Callable<Map<String, List<String>>> {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final List<String> OUTPUTS = List.of("count-out", "window-final-out", "session-final-out",
            "window-out", "session-out", "join-out");
    static final List<String> STORES = List.of("counts", "window-final", "session-final", "window-counts",
            "session-counts");

    private final String stateDir;
    private final String dslStoreSuppliers;
    private final boolean headers;
    private final boolean caching;
    private final long seed;
    private final int events;

    /**
     * @param headers whether the DSL makes its stores in the headers format
     * @param caching whether the record cache is on (10 MiB) rather than off
     */
    public StoreKindsTopologyRun(String stateDir, String dslStoreSuppliers, boolean headers, boolean caching,
                                 long seed, int events) {
        this.stateDir = stateDir;
        this.dslStoreSuppliers = dslStoreSuppliers;
        this.headers = headers;
        this.caching = caching;
        this.seed = seed;
        this.events = events;
    }

    @Override
    public Map<String, List<String>> call() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "kinds");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, caching ? 10L << 20 : 0L);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, dslStoreSuppliers);
        if (headers) {
            props.put(StreamsConfig.DSL_STORE_FORMAT_CONFIG, StreamsConfig.DSL_STORE_FORMAT_HEADERS);
        }
        // emit on window close at every record whose stream time closes a window: the driver's
        // wall clock does not move, and the emission must not depend on it
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_WINDOWED_AGGREGATION, 0L);
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        KStream<String, String> input = builder.stream("events");
        KGroupedStream<String, String> grouped = input.groupByKey();

        grouped.count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts"))
                .toStream().to("count-out", Produced.with(Serdes.String(), Serdes.Long()));

        TimeWindows minute = TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofSeconds(30));
        grouped.windowedBy(minute).emitStrategy(EmitStrategy.onWindowClose())
                .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("window-final"))
                .toStream((w, c) -> w.key() + "@" + w.window().start())
                .to("window-final-out", Produced.with(Serdes.String(), Serdes.Long()));
        grouped.windowedBy(minute)
                .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("window-counts"))
                .toStream((w, c) -> w.key() + "@" + w.window().start())
                .to("window-out", Produced.with(Serdes.String(), Serdes.Long()));

        SessionWindows sessions = SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(20),
                Duration.ofSeconds(10));
        // concatenation is order sensitive: a merge or an aggregate read in the wrong order shows
        grouped.windowedBy(sessions).emitStrategy(EmitStrategy.onWindowClose())
                .aggregate(() -> "", (k, v, agg) -> agg + v, (k, a, b) -> a + b,
                        Materialized.<String, String, SessionStore<Bytes, byte[]>>as("session-final"))
                .toStream((w, agg) -> w.key() + "@" + w.window().start() + "-" + w.window().end())
                .to("session-final-out", Produced.with(Serdes.String(), Serdes.String()));
        grouped.windowedBy(sessions)
                .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("session-counts"))
                .toStream((w, c) -> w.key() + "@" + w.window().start() + "-" + w.window().end())
                .to("session-out", Produced.with(Serdes.String(), Serdes.Long()));

        input.leftJoin(builder.<String, String>stream("other"), (a, b) -> a + "+" + b,
                        JoinWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(10), Duration.ofSeconds(5)))
                .to("join-out");

        Map<String, List<String>> result = new LinkedHashMap<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            TestInputTopic<String, String> in = driver.createInputTopic("events", new StringSerializer(),
                    new StringSerializer());
            TestInputTopic<String, String> other = driver.createInputTopic("other", new StringSerializer(),
                    new StringSerializer());
            Random random = new Random(seed);
            long t = 0;
            // about 2 s of event time per event: the windows and sessions close as often whatever
            // the number of events (each new time segment costs a Strata store, or RocksDB's)
            int step = 4_000;
            for (int i = 0; i < events; i++) {
                // mostly forward in time, some records late (within and past the grace periods)
                t += random.nextInt(step);
                long time = random.nextInt(10) == 0 ? Math.max(0, t - random.nextInt(90_000)) : t;
                String key = "k" + random.nextInt(12);
                String value = String.valueOf((char) ('a' + random.nextInt(26)));
                if (random.nextInt(4) == 0) {
                    other.pipeInput(key, value.toUpperCase(), T0.plusMillis(time));
                } else {
                    in.pipeInput(key, value, T0.plusMillis(time));
                }
            }
            for (String topic : OUTPUTS) {
                boolean longs = !topic.startsWith("session-final") && !topic.startsWith("join");
                List<String> records = new ArrayList<>();
                List<? extends KeyValue<String, ?>> read = longs
                        ? driver.createOutputTopic(topic, new StringDeserializer(), new LongDeserializer())
                                .readKeyValuesToList()
                        : driver.createOutputTopic(topic, new StringDeserializer(), new StringDeserializer())
                                .readKeyValuesToList();
                for (KeyValue<String, ?> kv : read) {
                    records.add(kv.key + "=" + kv.value);
                }
                result.put(topic, records);
            }
            Map<String, StateStore> stores = driver.getAllStateStores();
            for (String store : STORES) {
                result.put("store:" + store, List.of(innermost(stores.get(store)).getClass().getName()));
                result.put("outer:" + store, List.of(stores.get(store).getClass().getName()));
                List<String> chain = new ArrayList<>();
                for (StateStore s = stores.get(store); s != null;
                     s = s instanceof WrappedStateStore<?, ?, ?> w ? w.wrapped() : null) {
                    chain.add(s.getClass().getName());
                }
                result.put("chain:" + store, chain);
            }
            Path task = Path.of(stateDir, "kinds", "0_0");
            try (Stream<Path> all = Files.isDirectory(task) ? Files.walk(task) : Stream.empty()) {
                result.put("files", all.map(p -> task.relativize(p).toString()).sorted().toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return result;
    }

    private static StateStore innermost(StateStore store) {
        StateStore s = store;
        while (s instanceof WrappedStateStore<?, ?, ?> w) {
            s = w.wrapped();
        }
        return s;
    }
}
