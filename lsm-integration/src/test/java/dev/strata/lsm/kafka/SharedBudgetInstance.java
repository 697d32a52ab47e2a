package dev.strata.lsm.kafka;

import dev.strata.lsm.SharedResources;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Kafka Streams instance of {@link KafkaSharedBudgetSlowTest}'s application, run as its own
 * JVM (so that its heap and its shared Strata budget — one per application and JVM — are its
 * own): a key-value count and a 1-second tumbling-window count (grace 1 minute) of {@link #INPUT}, both stores on
 * Strata ({@link StrataDslStoreSuppliers}) with the shared budget on ({@code strata.*} configs).
 *
 * <p>Arguments: bootstrap servers, state directory, block cache bytes, memtable budget bytes,
 * and {@code strata.memory.off.heap} ({@code true}: memtable arenas and cached pages in direct
 * memory; {@code false}).
 * It prints, on standard output, lines starting with {@link #PREFIX}: {@code STATUS <state>
 * <active task ids>} every 200 ms, and on the line {@code report} on standard input {@code
 * MEMORY} with the shared budget's figures (memtable bytes now and at their peak, sampled
 * every 50 ms; block cache bytes now and at their peak; the stores' write buffer bytes now and
 * at their peak, and the peak of memtables and write buffers together), the heap used after a full
 * collection, the JVM's direct memory ({@code BufferPoolMXBean} "direct": bytes used now and at
 * their sampled peak, buffers) and mapped memory, and the process's resident set
 * ({@code /proc/self/status}: {@code VmRSS}, and its peak {@code VmHWM}); on {@code stop} (or the
 * end of standard input) it closes and exits.
 */
public final class SharedBudgetInstance {
    static final String APP = "strata-shared-budget";
    static final String INPUT = "budget-input";
    static final String KV_OUTPUT = "budget-kv-counts";
    static final String WINDOW_OUTPUT = "budget-window-counts";
    static final long WINDOW_MS = 1_000;
    static final String PREFIX = "STRATA-INSTANCE ";

    private SharedBudgetInstance() {
    }

    /** The sum over the instance's state stores of the state-store metric {@code name} (-1: none recorded). */
    private static long storeMetric(KafkaStreams streams, String name) {
        double sum = -1;
        for (var e : streams.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("stream-state-metrics")
                    && e.getValue().metricValue() instanceof Number n) {
                sum = Math.max(sum, 0) + n.doubleValue();
            }
        }
        return (long) sum;
    }

    /** Directories named rocksdb under the state directory (Kafka's RocksDB stores; none expected). */
    private static long rocksdbDirs(java.nio.file.Path stateDir) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(stateDir)) {
            return walk.filter(p -> p.getFileName().toString().equals("rocksdb")).count();
        }
    }

    /** Bytes of the files under the state directory's Strata store directories. */
    private static long strataBytes(java.nio.file.Path stateDir) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(stateDir)) {
            return walk.filter(p -> p.toString().contains("/strata") && java.nio.file.Files.isRegularFile(p))
                    .mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** The JVM's buffer pool {@code name} ("direct" or "mapped"). */
    private static java.lang.management.BufferPoolMXBean bufferPool(String name) {
        for (java.lang.management.BufferPoolMXBean pool
                : java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (pool.getName().equals(name)) {
                return pool;
            }
        }
        throw new IllegalStateException("no buffer pool " + name);
    }

    /** A {@code kB} figure of {@code /proc/self/status} ({@code VmRSS}, {@code VmHWM}) in bytes; -1 when absent. */
    private static long procStatusBytes(String field) throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith(field + ":")) {
                String[] parts = line.substring(field.length() + 1).trim().split("\\s+");
                return Long.parseLong(parts[0]) * 1024;   // the kernel reports kB
            }
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
        props.put(StrataStoreConfigs.BLOCK_CACHE_BYTES_CONFIG, args[2]);
        props.put(StrataStoreConfigs.MEMTABLE_BUDGET_BYTES_CONFIG, args[3]);
        props.put(StrataStoreConfigs.BACKGROUND_THREADS_CONFIG, 2);
        props.put(StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG, args.length > 4 ? args[4] : "false");
        props.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");  // the stores' own metrics
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
        props.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1_000);

        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        KStream<String, String> input = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()));
        input.groupByKey().count(Materialized.as("kv-counts")).toStream()
                .to(KV_OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        // A grace of a minute (the whole run's event time): a record a task reprocesses after a
        // migration under exactly-once is not dropped for a window its restored stream time closed.
        input.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(WINDOW_MS), Duration.ofMinutes(1)))
                .count(Materialized.as("window-counts")).toStream()
                .map((w, count) -> KeyValue.pair(w.key() + "@" + w.window().start(), count))
                .to(WINDOW_OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        AtomicLong memtablePeak = new AtomicLong();
        AtomicLong cachePeak = new AtomicLong();
        AtomicLong writeBufferPeak = new AtomicLong();
        AtomicLong totalPeak = new AtomicLong();
        AtomicLong directPeak = new AtomicLong();
        java.lang.management.BufferPoolMXBean direct = bufferPool("direct");
        java.lang.management.BufferPoolMXBean mapped = bufferPool("mapped");
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                SharedResources shared = StrataStoreConfigs.sharedIfMade(APP);
                if (shared != null) {
                    long memtables = shared.memtableBytesUsed();
                    long writeBuffers = shared.writeBufferBytesUsed();
                    memtablePeak.accumulateAndGet(memtables, Math::max);
                    writeBufferPeak.accumulateAndGet(writeBuffers, Math::max);
                    totalPeak.accumulateAndGet(memtables + writeBuffers, Math::max);
                    cachePeak.accumulateAndGet(shared.blockCacheWeightedBytes(), Math::max);
                }
                directPeak.accumulateAndGet(direct.getMemoryUsed(), Math::max);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "budget-sampler");
        sampler.setDaemon(true);
        Thread status = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                TreeSet<String> tasks = new TreeSet<>();
                try {
                    for (ThreadMetadata t : streams.metadataForLocalThreads()) {
                        for (TaskMetadata task : t.activeTasks()) {
                            tasks.add(task.taskId().toString());
                        }
                    }
                } catch (RuntimeException e) {
                    // not running yet
                }
                System.out.println(PREFIX + "STATUS " + streams.state() + " " + String.join(",", tasks));
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "status");
        status.setDaemon(true);
        streams.start();
        sampler.start();
        status.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("stop")) {
            if (line.equals("report")) {
                SharedResources shared = StrataStoreConfigs.sharedIfMade(APP);
                if (shared == null) {
                    System.out.println(PREFIX + "MEMORY none: no Strata store opened");
                    continue;
                }
                System.gc();
                Runtime rt = Runtime.getRuntime();
                long heapUsed = rt.totalMemory() - rt.freeMemory();
                System.out.println(PREFIX + "MEMORY memtable=" + shared.memtableBytesUsed() + " memtablePeak="
                        + memtablePeak.get() + " cache=" + shared.blockCacheWeightedBytes() + " cachePeak="
                        + cachePeak.get() + " writeBuffer=" + shared.writeBufferBytesUsed() + " writeBufferPeak="
                        + writeBufferPeak.get() + " memtableAndWriteBufferPeak=" + totalPeak.get()
                        + " storeWriteBuffers=" + storeMetric(streams, "write-buffer-bytes") + " heapUsed=" + heapUsed + " heapMax=" + rt.maxMemory() + " budgetStores="
                        + dev.strata.lsm.engine.SharedResourcesAccess.memtableBudget(shared).members()
                        + " strataDirBytes=" + strataBytes(java.nio.file.Path.of(args[1])) + " rocksdbDirs="
                        + rocksdbDirs(java.nio.file.Path.of(args[1])) + " storeBytesWritten="
                        + storeMetric(streams, "bytes-written-total") + " storeKeys="
                        + storeMetric(streams, "estimate-num-keys") + " directUsed=" + direct.getMemoryUsed()
                        + " directPeak=" + Math.max(directPeak.get(), direct.getMemoryUsed()) + " directBuffers="
                        + direct.getCount() + " mappedUsed=" + mapped.getMemoryUsed() + " rss="
                        + procStatusBytes("VmRSS") + " rssPeak=" + procStatusBytes("VmHWM") + " shared="
                        + shared);
            }
        }
        status.interrupt();
        sampler.interrupt();
        streams.close(Duration.ofSeconds(20));
        System.out.println(PREFIX + "CLOSED");
        System.exit(0);
    }
}
