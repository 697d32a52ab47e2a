package dev.strata.lsm.kafka;

import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.MockStreamsMetrics;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.ThreadCache;
import org.apache.kafka.streams.state.internals.WindowKeySchema;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.MockRecordCollector;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Changelog restore of a window store, Strata's ({@link StrataStores#persistentWindowStore})
 * against Kafka's RocksDB one ({@code Stores.persistentWindowStore}), through the same path:
 * each store is opened under Kafka's {@code InternalMockProcessorContext}, which registers
 * its restore callback, and the changelog is handed to that callback in batches of
 * {@code --batch} records (Kafka's restore consumer polls {@code max.poll.records}, 1000 by
 * default), as Kafka Streams' restore does. The changelog is that of a 1-minute tumbling
 * count: {@code --records} records, keys uniform over {@code --keys}, event time 1 ms apart,
 * Kafka's binary window keys (key, window start, sequence number 0), 8-byte values; retention
 * 1 hour. Figures are records/s of the restore (to the store's close, which writes what it
 * holds), medians of {@code --rounds}, engine order alternating each round, after an
 * unmeasured warm-up of each; beside each, the process CPU seconds the run took (every
 * thread, the engines' background threads and RocksDB's native ones included), which a
 * loaded machine distorts less than the wall time. {@code --store kv} restores a key-value
 * store instead ({@link StrataStores#persistentKeyValueStore} against
 * {@code Stores.persistentKeyValueStore}): the changelog of a count per key, {@code --keys}
 * keys. {@code --store versioned} restores a versioned key-value store (KIP-889,
 * {@link StrataStores#persistentVersionedKeyValueStore} against
 * {@code Stores.persistentVersionedKeyValueStore}, history retention 1 minute): the changelog
 * of a versioned table, each record a put of a key (uniform over {@code --keys}) at its event
 * time, 1 ms apart, handed with its timestamp ({@code restoreWithHeaders}). Each store is
 * checked after its restore (a key's last window
 * holds its last value). A measurement, not a test: run with
 * {@code java -cp ... dev.strata.lsm.kafka.KafkaRestoreBench --records 500000 --keys 100000}.
 */
public final class KafkaRestoreBench {
    private static final String STORE = "restore-bench";
    /** The seconds the last run's close took (part of its time). */
    private static double lastCloseSeconds;
    /** {@code --store versioned}. */
    private static boolean versioned;

    private KafkaRestoreBench() {
    }

    public static void main(String[] args) throws Exception {
        int records = 500_000;
        int keys = 100_000;
        int rounds = 3;
        int batch = 1_000;
        String kind = "window";
        List<String> engines = List.of("strata", "rocksdb");
        Path base = Path.of(System.getProperty("java.io.tmpdir"), "strata-kafka-restore-bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--batch" -> batch = Integer.parseInt(args[++i]);
                case "--dir" -> base = Path.of(args[++i]);
                case "--store" -> kind = args[++i];
                case "--engines" -> engines = List.of(args[++i].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--records N --keys N --rounds N --batch N --dir DIR --store window|kv|versioned"
                        + " --engines strata,rocksdb)");
            }
        }
        if (!kind.equals("window") && !kind.equals("kv") && !kind.equals("versioned")) {
            throw new IllegalArgumentException("--store must be window, kv or versioned, was " + kind);
        }
        boolean kv = !kind.equals("window");  // a versioned changelog is keyed as a key-value one
        versioned = kind.equals("versioned");
        String label = versioned ? "versioned" : kv ? "key-value" : "window";
        List<List<KeyValue<byte[], byte[]>>> changelog = changelog(records, keys, batch, kv);
        System.out.printf(Locale.ROOT, "KafkaRestoreBench: " + label + " store changelog of %,d records over %,d keys, "
                + "batches of %,d, %d rounds, java %s, %d cpus%n", records, keys, batch, rounds,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        for (String engine : engines) {   // warm-up
            run(engine, base, changelog.subList(0, Math.max(1, changelog.size() / 10)), kv);
        }
        double[] strata = new double[rounds];
        double[] rocksdb = new double[rounds];
        double[] strataCpu = new double[rounds];
        double[] rocksdbCpu = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            List<String> order = r % 2 == 0 ? engines : reversed(engines);
            for (String engine : order) {
                long cpuBefore = processCpuNanos();
                double seconds = run(engine, base, changelog, kv);
                double cpu = (processCpuNanos() - cpuBefore) / 1e9;
                double rate = records / seconds;
                (engine.equals("strata") ? strata : rocksdb)[r] = rate;
                (engine.equals("strata") ? strataCpu : rocksdbCpu)[r] = cpu;
                System.out.printf(Locale.ROOT, "  restore %-7s round %d: %,10.0f records/s (%.2f s, of which the close"
                        + " %.2f s; %.2f s cpu)%n", engine, r, rate, seconds, lastCloseSeconds, cpu);
            }
        }
        double s = median(strata);
        double k = median(rocksdb);
        double sc = median(strataCpu);
        double kc = median(rocksdbCpu);
        System.out.printf(Locale.ROOT, "%n| restore | Strata records/s (median) | RocksDB records/s (median) | "
                + "Strata / RocksDB | CPU s Strata / RocksDB (medians) |%n|---|---:|---:|---:|---|%n"
                + "| %s store | %,.0f | %,.0f | %.2fx | %.2f / %.2f |%n", label, s, k, s / k,
                sc, kc);
        System.out.printf(Locale.ROOT, "load average at the end: %.1f%n",
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** CPU time of the whole process so far (every thread, native ones included). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static List<String> reversed(List<String> list) {
        List<String> copy = new ArrayList<>(list);
        java.util.Collections.reverse(copy);
        return copy;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    /**
     * The changelog of a 1-minute tumbling count ({@code kv}: of a count per key), in batches;
     * the last batch may be short.
     */
    private static List<List<KeyValue<byte[], byte[]>>> changelog(int records, int keys, int batch, boolean kv) {
        Random random = new Random(42);
        long[] counts = new long[keys];
        List<List<KeyValue<byte[], byte[]>>> batches = new ArrayList<>();
        List<KeyValue<byte[], byte[]>> current = new ArrayList<>(batch);
        for (int i = 0; i < records; i++) {
            int k = random.nextInt(keys);
            long windowStart = i - i % 60_000;
            counts[k]++;
            byte[] key = kv ? key(k) : WindowKeySchema.toStoreKeyBinary(Bytes.wrap(key(k)), windowStart, 0).get();
            current.add(KeyValue.pair(key, ByteBuffer.allocate(Long.BYTES).putLong(counts[k]).array()));
            if (current.size() == batch) {
                batches.add(current);
                current = new ArrayList<>(batch);
            }
        }
        if (!current.isEmpty()) {
            batches.add(current);
        }
        return batches;
    }

    private static byte[] key(int k) {
        return String.format(Locale.ROOT, "key-%08d", k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Restores {@code changelog} into a fresh store of {@code engine}; the seconds it took, to the close. */
    private static double run(String engine, Path base, List<List<KeyValue<byte[], byte[]>>> changelog, boolean kv)
            throws IOException {
        Path dir = base.resolve(engine);
        deleteRecursively(dir);
        Files.createDirectories(dir);
        InternalMockProcessorContext<?, ?> context = new InternalMockProcessorContext<>(dir.toFile(),
                Serdes.Bytes(), Serdes.ByteArray(), new MockRecordCollector(),
                new ThreadCache(new LogContext("bench"), 0, new MockStreamsMetrics(new Metrics())));
        if (versioned) {
            return runVersioned(engine, dir, context, changelog);
        }
        if (kv) {
            KeyValueStore<Bytes, byte[]> store = engine.equals("strata")
                    ? StrataStores.persistentKeyValueStore(STORE).get()
                    : Stores.persistentKeyValueStore(STORE).get();
            store.init((StateStoreContext) context, store);
            long start = System.nanoTime();
            for (List<KeyValue<byte[], byte[]>> b : changelog) {
                context.restore(STORE, b);
            }
            List<KeyValue<byte[], byte[]>> lastBatch = changelog.get(changelog.size() - 1);
            KeyValue<byte[], byte[]> last = lastBatch.get(lastBatch.size() - 1);
            if (!Arrays.equals(store.get(Bytes.wrap(last.key)), last.value)) {
                throw new IllegalStateException(engine + ": the restored store does not hold the last record");
            }
            long closing = System.nanoTime();
            store.close();
            lastCloseSeconds = (System.nanoTime() - closing) / 1e9;
            double seconds = (System.nanoTime() - start) / 1e9;
            deleteRecursively(dir);
            return seconds;
        }
        WindowStore<Bytes, byte[]> store = engine.equals("strata")
                ? StrataStores.persistentWindowStore(STORE, Duration.ofHours(1), Duration.ofMinutes(1), false).get()
                : Stores.persistentWindowStore(STORE, Duration.ofHours(1), Duration.ofMinutes(1), false).get();
        store.init((StateStoreContext) context, store);
        long start = System.nanoTime();
        for (List<KeyValue<byte[], byte[]>> b : changelog) {
            context.restore(STORE, b);
        }
        // Check: the last record's window holds its value.
        List<KeyValue<byte[], byte[]>> lastBatch = changelog.get(changelog.size() - 1);
        KeyValue<byte[], byte[]> last = lastBatch.get(lastBatch.size() - 1);
        int keyLength = last.key.length - Long.BYTES - Integer.BYTES;   // key, window start, seqnum
        Bytes lastKey = Bytes.wrap(Arrays.copyOf(last.key, keyLength));
        long lastStart = ByteBuffer.wrap(last.key).getLong(keyLength);
        try (WindowStoreIterator<byte[]> it = store.fetch(lastKey, lastStart, lastStart)) {
            if (!it.hasNext() || !Arrays.equals(it.next().value, last.value)) {
                throw new IllegalStateException(engine + ": the restored store does not hold the last record");
            }
        }
        long closing = System.nanoTime();
        store.close();
        lastCloseSeconds = (System.nanoTime() - closing) / 1e9;
        double seconds = (System.nanoTime() - start) / 1e9;
        deleteRecursively(dir);
        return seconds;
    }

    /**
     * Restores {@code changelog} into a fresh versioned store of {@code engine}, each record a
     * put at time {@code its index} (1 ms apart, as the key-value changelog's records).
     */
    private static double runVersioned(String engine, Path dir, InternalMockProcessorContext<?, ?> context,
                                       List<List<KeyValue<byte[], byte[]>>> changelog) throws IOException {
        org.apache.kafka.streams.state.VersionedBytesStoreSupplier supplier = engine.equals("strata")
                ? StrataStores.persistentVersionedKeyValueStore(STORE, Duration.ofMinutes(1))
                : Stores.persistentVersionedKeyValueStore(STORE, Duration.ofMinutes(1));
        org.apache.kafka.streams.state.VersionedKeyValueStore<Bytes, byte[]> store =
                Stores.versionedKeyValueStoreBuilder(supplier, Serdes.Bytes(), Serdes.ByteArray())
                        .withLoggingDisabled().build();
        store.init((StateStoreContext) context, store);
        List<List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>>> batches = new ArrayList<>();
        long offset = 0;
        for (List<KeyValue<byte[], byte[]>> b : changelog) {
            List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(b.size());
            for (KeyValue<byte[], byte[]> kv : b) {
                records.add(new org.apache.kafka.clients.consumer.ConsumerRecord<>(STORE + "-changelog", 0, offset,
                        offset, org.apache.kafka.common.record.TimestampType.CREATE_TIME, kv.key.length,
                        kv.value.length, kv.key, kv.value, new org.apache.kafka.common.header.internals.RecordHeaders(),
                        java.util.Optional.empty()));
                offset++;
            }
            batches.add(records);
        }
        long start = System.nanoTime();
        for (List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> b : batches) {
            context.restoreWithHeaders(STORE, b);
        }
        List<KeyValue<byte[], byte[]>> lastBatch = changelog.get(changelog.size() - 1);
        KeyValue<byte[], byte[]> last = lastBatch.get(lastBatch.size() - 1);
        org.apache.kafka.streams.state.VersionedRecord<byte[]> latest = store.get(Bytes.wrap(last.key));
        if (latest == null || !Arrays.equals(latest.value(), last.value) || latest.timestamp() != offset - 1) {
            throw new IllegalStateException(engine + ": the restored store does not hold the last record");
        }
        long closing = System.nanoTime();
        store.close();
        lastCloseSeconds = (System.nanoTime() - closing) / 1e9;
        double seconds = (System.nanoTime() - start) / 1e9;
        deleteRecursively(dir);
        return seconds;
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
