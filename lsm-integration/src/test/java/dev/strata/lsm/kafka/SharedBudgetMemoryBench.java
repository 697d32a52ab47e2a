package dev.strata.lsm.kafka;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.strata.lsm.SharedResources;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Many Kafka Streams key-value stores in one JVM sharing one Strata budget (issue 31: "100
 * stores stay within the budget, memory off the heap"), loaded with more data than the budget
 * holds, with the budget's memory on the Java heap or off it ({@code strata.memory.off.heap}).
 * Each store is a task's {@link StrataStores#persistentKeyValueStore} opened under a
 * {@link TestStoreContext} whose application configs set {@code strata.memtable.budget.bytes},
 * {@code strata.block.cache.bytes}, {@code strata.background.threads} (2) and
 * {@code strata.memory.off.heap}: the stores share one {@link SharedResources}, as the stores of
 * a Kafka Streams application do.
 *
 * <p>Load: {@code --records} records a store ({@code --value-bytes} random bytes each, 12-byte
 * keys), the stores written in turn, each store committing every 100 of its records (with the
 * default coalescing). Then the memtables are let settle under the budget, and {@code --reads}
 * point reads of loaded keys, uniform over the stores and keys, fill the block cache. Printed:
 * heap used after full collections and the JVM's direct memory ({@code BufferPoolMXBean}
 * "direct") when the stores are open, after the load and after the reads; the budget's own
 * accounting (memtables, write buffers, cache) and their sampled peaks; the collector's pauses
 * during load and reads (count, total, longest; from the collector's notifications, the
 * explicit {@code System.gc()} of the measurements left out); each phase's operations a second
 * and its longest and 99.9th-percentile operation. A measurement, not a test: run one JVM per
 * setting, e.g. {@code java -Xms1g -Xmx1g -cp ... dev.strata.lsm.kafka.SharedBudgetMemoryBench
 * --off-heap true}.
 */
public final class SharedBudgetMemoryBench {
    private static final TopicPartition CHANGELOG_TOPIC = new TopicPartition("bench-changelog", 0);

    private SharedBudgetMemoryBench() {
    }

    /** Collector pauses seen through the collectors' notifications. */
    private static final class Pauses {
        private long count;
        private long totalMs;
        private long maxMs;
        private volatile boolean counting;

        synchronized void add(long ms) {
            if (counting) {
                count++;
                totalMs += ms;
                maxMs = Math.max(maxMs, ms);
            }
        }

        synchronized String summary() {
            return String.format("%d pauses, total %d ms, longest %d ms", count, totalMs, maxMs);
        }
    }

    private static void listen(Pauses pauses) {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((n, h) -> {
                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                    return;
                }
                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                // G1's concurrent cycle is not a pause; an explicit System.gc() is the measurement's own.
                if (info.getGcName().contains("Concurrent") || "System.gc()".equals(info.getGcCause())) {
                    return;
                }
                pauses.add(info.getGcInfo().getDuration());
            }, null, null);
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static BufferPoolMXBean direct() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b;
            }
        }
        throw new IllegalStateException("no direct buffer pool");
    }

    private static String memory(String when) throws InterruptedException {
        long heap = heapAfterGc();
        BufferPoolMXBean d = direct();
        return String.format("%-14s heap used after GC %,d B, direct memory %,d B (%d buffers)", when, heap,
                d.getMemoryUsed(), d.getCount());
    }

    private static Bytes key(int i) {
        return Bytes.wrap(String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8));
    }

    private static String latencies(String phase, long ops, long nanos, long[] each) {
        long[] sorted = each.clone();
        Arrays.sort(sorted);
        return String.format("%-6s %,d ops in %.2f s: %,.0f ops/s, p99.9 %.3f ms, max %.3f ms", phase, ops, nanos / 1e9,
                ops / (nanos / 1e9), sorted[(int) Math.min(sorted.length - 1, sorted.length * 0.999)] / 1e6,
                sorted[sorted.length - 1] / 1e6);
    }

    public static void main(String[] args) throws Exception {
        int stores = 100;
        int records = 5_000;
        int valueBytes = 1_000;
        long budget = 64L << 20;
        long cache = 64L << 20;
        int reads = 500_000;
        boolean offHeap = false;
        Path base = Path.of(System.getProperty("java.io.tmpdir"), "strata-shared-budget-bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--stores" -> stores = Integer.parseInt(args[++i]);
                case "--records" -> records = Integer.parseInt(args[++i]);
                case "--value-bytes" -> valueBytes = Integer.parseInt(args[++i]);
                case "--budget-mib" -> budget = Long.parseLong(args[++i]) << 20;
                case "--cache-mib" -> cache = Long.parseLong(args[++i]) << 20;
                case "--reads" -> reads = Integer.parseInt(args[++i]);
                case "--off-heap" -> offHeap = Boolean.parseBoolean(args[++i]);
                case "--dir" -> base = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        deleteTree(base);
        Files.createDirectories(base);
        Pauses pauses = new Pauses();
        listen(pauses);
        System.out.printf("SharedBudgetMemoryBench: %d key-value stores, %,d records a store of %,d-byte values "
                        + "(%,d MB written), memtable budget %,d B, block cache %,d B, strata.memory.off.heap=%s, "
                        + "%,d reads, max heap %,d B, java %s%n", stores, records, valueBytes,
                (long) stores * records * (valueBytes + 12) / 1_000_000, budget, cache, offHeap, reads,
                Runtime.getRuntime().maxMemory(), System.getProperty("java.version"));
        System.out.println(memory("start"));

        String app = "shared-budget-bench-" + System.nanoTime();
        List<StrataKeyValueStore> opened = new ArrayList<>();
        try {
            for (int s = 0; s < stores; s++) {
                TestStoreContext c = new TestStoreContext(base.resolve("task-" + s).toFile(), s, false);
                Map<String, Object> configs = c.appConfigs();
                configs.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
                configs.remove(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG);   // the default coalescing
                configs.put(StrataStoreConfigs.MEMTABLE_BUDGET_BYTES_CONFIG, budget);
                configs.put(StrataStoreConfigs.BLOCK_CACHE_BYTES_CONFIG, cache);
                configs.put(StrataStoreConfigs.BACKGROUND_THREADS_CONFIG, 2);
                configs.put(StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG, offHeap);
                StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("kv").get();
                store.init(c, store);
                opened.add(store);
            }
            SharedResources shared = StrataStoreConfigs.sharedIfMade(app);
            if (shared == null || shared.offHeap() != offHeap) {
                throw new IllegalStateException("the stores do not share the configured resources: " + shared);
            }
            System.out.println(memory("opened"));

            Random random = new Random(42);
            byte[][] values = new byte[1024][valueBytes];
            for (byte[] v : values) {
                random.nextBytes(v);
            }
            long peakMemtables = 0;
            long peakBuffers = 0;
            long total = (long) stores * records;
            long[] putNanos = new long[(int) total];
            int n = 0;
            pauses.counting = true;
            long loadStart = System.nanoTime();
            for (int i = 0; i < records; i++) {
                Bytes k = key(i);
                for (int s = 0; s < stores; s++) {
                    StrataKeyValueStore store = opened.get(s);
                    long t0 = System.nanoTime();
                    store.put(k, values[(i * 31 + s) & 1023]);
                    if (i % 100 == 99) {
                        store.commit(Map.of(CHANGELOG_TOPIC, (long) i));
                    }
                    putNanos[n++] = System.nanoTime() - t0;
                }
                if (i % 50 == 0) {
                    peakMemtables = Math.max(peakMemtables, shared.memtableBytesUsed());
                    peakBuffers = Math.max(peakBuffers, shared.writeBufferBytesUsed());
                }
            }
            for (int s = 0; s < stores; s++) {
                opened.get(s).commit(Map.of(CHANGELOG_TOPIC, (long) records));
            }
            long loadNanos = System.nanoTime() - loadStart;
            pauses.counting = false;
            String loadPauses = pauses.summary();
            System.out.println(latencies("load", total, loadNanos, putNanos));
            System.out.println("       collector during the load: " + loadPauses);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (shared.memtableBytesUsed() > budget && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            System.out.printf("       budget after the load: memtables %,d B (peak sampled %,d B), write buffers %,d B "
                            + "(peak %,d B), cache %,d B; budget %,d B, cache capacity %,d B%n",
                    shared.memtableBytesUsed(), peakMemtables, shared.writeBufferBytesUsed(), peakBuffers,
                    shared.blockCacheWeightedBytes(), budget, cache);
            System.out.println(memory("loaded"));

            long[] getNanos = new long[reads];
            long found = 0;
            pauses.counting = true;
            long readStart = System.nanoTime();
            for (int r = 0; r < reads; r++) {
                int s = random.nextInt(stores);
                int i = random.nextInt(records);
                long t0 = System.nanoTime();
                byte[] got = opened.get(s).get(key(i));
                getNanos[r] = System.nanoTime() - t0;
                if (got != null && Arrays.equals(got, values[(i * 31 + s) & 1023])) {
                    found++;
                }
            }
            long readNanos = System.nanoTime() - readStart;
            pauses.counting = false;
            if (found != reads) {
                throw new IllegalStateException(found + " of " + reads + " reads found their value");
            }
            System.out.println(latencies("reads", reads, readNanos, getNanos));
            System.out.println("       collector over load and reads: " + pauses.summary());
            System.out.printf("       budget after the reads: memtables %,d B, write buffers %,d B, cache %,d B%n",
                    shared.memtableBytesUsed(), shared.writeBufferBytesUsed(), shared.blockCacheWeightedBytes());
            System.out.println(memory("read"));
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                System.out.printf("       %s: %d collections, %d ms (the whole run, explicit ones included)%n",
                        gc.getName(), gc.getCollectionCount(), gc.getCollectionTime());
            }
        } finally {
            for (StrataKeyValueStore s : opened) {
                s.close();
            }
        }
        deleteTree(base);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
