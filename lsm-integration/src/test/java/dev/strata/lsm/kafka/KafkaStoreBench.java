package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.TestKeys;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Throughput of Kafka Streams topologies under {@link TopologyTestDriver} with Strata's DSL
 * store suppliers and with Kafka's default RocksDB ones, one after the other in one JVM,
 * alternating which goes first each round, with the record cache off (every record reaches
 * the store): a count per key, a 1-minute tumbling-window count, and a session-window
 * (5-minute gap) aggregate, over the same records ({@code --records}, keys uniform over
 * {@code --keys}, event time 1 ms apart). Prints each run and a table of medians of
 * {@code --rounds} (records/s of the piping phase, and the driver's close, where the stores
 * flush). A measurement, not a test: run with
 * {@code java -cp ... dev.strata.lsm.kafka.KafkaStoreBench --records 1000000 --keys 200000}
 * (docs/benchmarks.md has the full command).
 */
public final class KafkaStoreBench {
    private static final String STRATA = "strata";
    private static final String ROCKSDB = "rocksdb";

    private KafkaStoreBench() {
    }

    /** One run's figures. */
    record Run(String workload, String engine, int round, double pipeSeconds, double closeSeconds, int records) {
        double recordsPerSecond() {
            return records / pipeSeconds;
        }
    }

    public static void main(String[] args) throws Exception {
        int records = 1_000_000;
        int keys = 200_000;
        int rounds = 3;
        int warmup = -1;
        List<String> engines = List.of(STRATA, ROCKSDB);
        List<String> workloads = List.of("count", "windowed", "session");
        Path base = Path.of(System.getProperty("java.io.tmpdir"), "strata-kafka-bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--engines" -> engines = List.of(args[++i].split(","));
                case "--workloads" -> workloads = List.of(args[++i].split(","));
                case "--dir" -> base = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--records N --keys N --rounds N --warmup N --engines strata,rocksdb --workloads count,windowed,session --dir DIR)");
            }
        }
        for (String w : workloads) {
            if (!List.of("count", "windowed", "session").contains(w)) {
                throw new IllegalArgumentException("unknown workload " + w + " (count, windowed, session)");
            }
        }
        String[] inputKeys = new String[records];
        Random rnd = new Random(31);
        for (int i = 0; i < records; i++) {
            inputKeys[i] = TestKeys.padded("key-", rnd.nextInt(keys), 9);
        }
        if (warmup < 0) {
            warmup = Math.min(records, 100_000);
        }
        System.out.printf(Locale.ROOT, "KafkaStoreBench: %,d records over %,d keys, %d rounds after a warm-up of %,d "
                        + "records per topology and engine, java %s, %d cpus%n", records, keys, rounds, warmup,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        // Warm-up (not counted): the JIT compiles Kafka's processing path, shared by both engines,
        // before the first measured run, which would otherwise pay for it alone.
        String[] warmupKeys = Arrays.copyOf(inputKeys, warmup);
        for (String workload : workloads) {
            for (String engine : engines) {
                Path dir = base.resolve("warmup-" + workload + "-" + engine);
                deleteTree(dir);
                Files.createDirectories(dir);
                run(workload, engine, -1, warmupKeys, dir);
                deleteTree(dir);
            }
        }
        List<Run> runs = new ArrayList<>();
        for (String workload : workloads) {
            for (int round = 0; round < rounds; round++) {
                List<String> order = round % 2 == 0 ? engines : reversed(engines);
                for (String engine : order) {
                    Path dir = base.resolve(workload + "-" + engine + "-" + round);
                    deleteTree(dir);
                    Files.createDirectories(dir);
                    Run r = run(workload, engine, round, inputKeys, dir);
                    System.out.printf(Locale.ROOT, "  %-8s %-7s round %d: %,10.0f records/s (pipe %.2f s, close %.2f s)%n",
                            workload, engine, round, r.recordsPerSecond(), r.pipeSeconds(), r.closeSeconds());
                    runs.add(r);
                    deleteTree(dir);
                }
            }
        }
        if (!engines.contains(STRATA) || !engines.contains(ROCKSDB)) {
            return;
        }
        System.out.println();
        System.out.println("| topology | Strata records/s (median) | RocksDB records/s (median) | Strata / RocksDB "
                + "| close s, Strata / RocksDB (median) |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (String workload : workloads) {
            double s = median(runs, workload, STRATA, Run::recordsPerSecond);
            double r = median(runs, workload, ROCKSDB, Run::recordsPerSecond);
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %.2fx | %.2f / %.2f |%n", workload, s, r, s / r,
                    median(runs, workload, STRATA, Run::closeSeconds), median(runs, workload, ROCKSDB, Run::closeSeconds));
        }
    }

    private static List<String> reversed(List<String> list) {
        List<String> r = new ArrayList<>(list);
        java.util.Collections.reverse(r);
        return r;
    }

    private static double median(List<Run> runs, String workload, String engine,
                                 java.util.function.ToDoubleFunction<Run> f) {
        double[] v = runs.stream().filter(r -> r.workload().equals(workload) && r.engine().equals(engine))
                .mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static Run run(String workload, String engine, int round, String[] inputKeys, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-" + workload + "-" + engine + "-" + round);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, engine.equals(STRATA) ? StrataDslStoreSuppliers.class
                : BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, String> grouped = builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey(Grouped.with(Serdes.String(), Serdes.String()));
        switch (workload) {
            case "count" -> grouped.count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts"));
            case "windowed" -> grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1)))
                    .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("windowed-counts"));
            case "session" -> grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMinutes(5)))
                    .aggregate(() -> 0L, (k, v, agg) -> agg + v.length(), (k, a, b) -> a + b,
                            Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("session-lengths")
                                    .withValueSerde(Serdes.Long()));
            default -> throw new IllegalArgumentException(workload);
        }
        long t0;
        long t1;
        long t2;
        TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props);
        try {
            TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(),
                    new StringSerializer(), Instant.ofEpochMilli(0), Duration.ofMillis(1));
            t0 = System.nanoTime();
            for (String k : inputKeys) {
                in.pipeInput(k, "v");
            }
            t1 = System.nanoTime();
        } finally {
            driver.close();
        }
        t2 = System.nanoTime();
        return new Run(workload, engine, round, (t1 - t0) / 1e9, (t2 - t1) / 1e9, inputKeys.length);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
