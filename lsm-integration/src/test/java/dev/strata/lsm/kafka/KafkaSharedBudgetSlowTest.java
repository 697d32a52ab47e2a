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
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two Kafka Streams instances of one application on the KRaft test cluster (the setup of
 * {@link KafkaClusterTakeoverTest}), each its own JVM ({@link SharedBudgetInstance}: the shared
 * Strata budget is one per application and JVM, and each instance's heap is its own), both with
 * {@link StrataDslStoreSuppliers} and the shared budget on ({@code strata.block.cache.bytes},
 * {@code strata.memtable.budget.bytes}, {@code strata.background.threads}), running a key-value
 * count and a 1-second tumbling-window count over {@link #RECORDS} records on {@link #PARTITIONS}
 * partitions. Checked: both instances own tasks and together all of them; every output's last
 * count per key (and per key and window) equals the count computed here; each instance's
 * shared budget (memtable bytes, now and at their peak; block cache bytes) stays within what was
 * configured, and its heap used after a full collection within its {@code -Xmx}. Run with the
 * memtables and cached pages on the heap and off it ({@code strata.memory.off.heap}); each
 * instance also reports its direct memory ({@code BufferPoolMXBean} "direct") and resident set
 * ({@code VmRSS}, {@code VmHWM}). The figures are printed (docs/kafka-streams.md, "Measurements").
 *
 * <p>Slow lane only ({@code -Pslow}): a broker, a controller and two JVMs.
 */
@SlowTest
@Timeout(value = 7, unit = TimeUnit.MINUTES)
class KafkaSharedBudgetSlowTest {
    private static final int PARTITIONS = 4;
    /**
     * 30,000 records in the slow lane (10,000 at multiplier 1), about 7,500 a task. Under
     * exactly-once Kafka Streams commits a running task's stores ({@code StateStore.commit})
     * only when it suspends or closes the task ({@code StreamTask.postCommit}), so until then
     * the counts' writes are in the Strata stores' write buffers, which are counted in the shared
     * budget: when memtables and write buffers together pass it, a store whose buffer grows
     * writes it into its memtables ({@link WriteBufferLimit}). The budget is small enough (256 KiB)
     * that the window counts' buffers pass it, so the data reaches the memtables before any
     * commit (the stores' {@code bytes-written-total} and the memtable peak show it).
     */
    private static final int RECORDS = TestScale.scaled(10_000);
    private static final int KEYS = 300;
    private static final long CACHE_BYTES = 8L << 20;
    private static final long MEMTABLE_BUDGET_BYTES = 256L << 10;
    /** The write buffers may pass the budget by the record being added (one stream thread). */
    private static final long RECORD_SLACK = 1L << 10;
    private static final String XMX = "-Xmx256m";
    private static final long XMX_BYTES = 256L << 20;
    private static final Duration WAIT = Duration.ofSeconds(240);   // two JVMs and a broker on a loaded 2-core machine

    @TempDir
    Path dir;

    private KafkaClusterTestKit cluster;
    private final Map<String, Instance> instances = new HashMap<>();

    /** A child JVM running one instance, with the lines it printed under {@link SharedBudgetInstance#PREFIX}. */
    private static final class Instance {
        final Process process;
        final Writer stdin;
        volatile String status = "";
        final BlockingQueue<String> memory = new LinkedBlockingQueue<>();

        Instance(Process process) {
            this.process = process;
            this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = out.readLine()) != null) {
                        if (line.startsWith(SharedBudgetInstance.PREFIX + "STATUS ")) {
                            status = line.substring((SharedBudgetInstance.PREFIX + "STATUS ").length());
                        } else if (line.startsWith(SharedBudgetInstance.PREFIX + "MEMORY ")) {
                            memory.add(line.substring((SharedBudgetInstance.PREFIX + "MEMORY ").length()));
                        }
                    }
                } catch (java.io.IOException e) {
                    // the process ended
                }
            }, "instance-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        void send(String command) throws java.io.IOException {
            stdin.write(command + "\n");
            stdin.flush();
        }

        boolean running() {
            return status.startsWith("RUNNING ");
        }

        Set<String> tasks() {
            String[] parts = status.split(" ", 2);
            if (parts.length < 2 || parts[1].isBlank()) {
                return Set.of();
            }
            return Set.of(parts[1].split(","));
        }
    }

    @BeforeEach
    void startCluster() throws Exception {
        cluster = SingleNodeKafka.start(dir.resolve("kafka"));
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(SharedBudgetInstance.INPUT, PARTITIONS, (short) 1),
                    new NewTopic(SharedBudgetInstance.KV_OUTPUT, PARTITIONS, (short) 1),
                    new NewTopic(SharedBudgetInstance.WINDOW_OUTPUT, PARTITIONS, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stopAll() throws Exception {
        for (Instance i : instances.values()) {
            try {
                i.send("stop");
            } catch (java.io.IOException e) {
                // already gone
            }
        }
        for (Instance i : instances.values()) {
            if (!i.process.waitFor(30, TimeUnit.SECONDS)) {
                i.process.destroyForcibly();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private Instance start(String name, boolean offHeap) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, XMX, "-cp", classpath, SharedBudgetInstance.class.getName(),
                cluster.bootstrapServers(), Files.createDirectories(dir.resolve(name)).toString(),
                Long.toString(CACHE_BYTES), Long.toString(MEMTABLE_BUDGET_BYTES), Boolean.toString(offHeap));
        pb.redirectError(dir.resolve(name + ".stderr").toFile());
        Instance instance = new Instance(pb.start());
        instances.put(name, instance);
        return instance;
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

    /** Reads {@code topic}'s committed records until the last count of each key equals {@code expected}. */
    private void awaitCounts(String topic, Map<String, Long> expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "verifier-" + topic);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, Long> latest = new TreeMap<>();
        try (KafkaConsumer<String, Long> consumer =
                     new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!latest.equals(expected)) {
                if (System.nanoTime() > deadline) {
                    fail(topic + ": counts did not reach the expected ones; differing: " + expected.entrySet().stream()
                            .filter(e -> !e.getValue().equals(latest.get(e.getKey()))).limit(10)
                            .map(e -> e.getKey() + " expected " + e.getValue() + " got " + latest.get(e.getKey()))
                            .collect(Collectors.joining(", ")) + "; extra keys: " + latest.keySet().stream()
                            .filter(k -> !expected.containsKey(k)).limit(10).toList());
                }
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(r.key(), r.value());
                }
            }
        }
        assertEquals(expected, latest, topic);
    }

    private static long figure(String memoryLine, String name) {
        for (String part : memoryLine.split(" ")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in " + memoryLine);
    }

    @ParameterizedTest(name = "off heap {0}")
    @ValueSource(booleans = {false, true})
    void twoInstancesWithTheSharedBudgetCountRightAndStayWithinIt(boolean offHeap) throws Exception {
        Instance a = start("a", offHeap);
        Instance b = start("b", offHeap);
        await("both instances run and own tasks", () -> a.running() && b.running() && !a.tasks().isEmpty()
                && !b.tasks().isEmpty() && a.tasks().size() + b.tasks().size() == PARTITIONS);
        Set<String> all = new HashSet<>(a.tasks());
        all.addAll(b.tasks());
        assertEquals(PARTITIONS, all.size(), "tasks of a " + a.tasks() + ", of b " + b.tasks());

        // Keys uniform over KEYS, event time 10 ms apart from now (an old time would have the broker
        // delete the topics' segments by retention time): 1-second windows of ~100 records.
        Random random = new Random(31);
        long base = System.currentTimeMillis() / 1_000 * 1_000;
        Map<String, Long> kvExpected = new TreeMap<>();
        Map<String, Long> windowExpected = new TreeMap<>();
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                String key = "k" + random.nextInt(KEYS);
                long time = base + i * 10L;
                producer.send(new ProducerRecord<>(SharedBudgetInstance.INPUT, null, time, key, "v" + i));
                kvExpected.merge(key, 1L, Long::sum);
                long windowStart = time - time % SharedBudgetInstance.WINDOW_MS;
                windowExpected.merge(key + "@" + windowStart, 1L, Long::sum);
            }
            producer.flush();
        }
        awaitCounts(SharedBudgetInstance.KV_OUTPUT, kvExpected);
        awaitCounts(SharedBudgetInstance.WINDOW_OUTPUT, windowExpected);
        assertFalse(a.tasks().isEmpty() || b.tasks().isEmpty(), "both instances still own tasks");

        for (Map.Entry<String, Instance> e : new TreeMap<>(instances).entrySet()) {
            e.getValue().send("report");
            String memory = e.getValue().memory.poll(30, TimeUnit.SECONDS);
            assertTrue(memory != null && !memory.startsWith("none"), "instance " + e.getKey() + " memory: " + memory);
            System.out.printf("instance %s (tasks %s): %s%n", e.getKey(), e.getValue().tasks(), memory);
            long memtable = figure(memory, "memtable");
            long memtablePeak = figure(memory, "memtablePeak");
            long cache = figure(memory, "cache");
            long cachePeak = figure(memory, "cachePeak");
            long heapUsed = figure(memory, "heapUsed");
            long writeBuffer = figure(memory, "writeBuffer");
            long writeBufferPeak = figure(memory, "writeBufferPeak");
            long totalPeak = figure(memory, "memtableAndWriteBufferPeak");
            long bytesWritten = figure(memory, "storeBytesWritten");
            assertEquals(0, figure(memory, "rocksdbDirs"), "no store of the application is on RocksDB: " + memory);
            assertTrue(writeBufferPeak > 0 && writeBufferPeak <= MEMTABLE_BUDGET_BYTES + RECORD_SLACK,
                    "write buffers counted, and within the budget of " + MEMTABLE_BUDGET_BYTES + ": " + memory);
            // Under exactly-once, with no commit of the running tasks' stores, the counts reached
            // Strata through the budget's early writes: far more than the stores' metadata.
            assertTrue(memtablePeak > MEMTABLE_BUDGET_BYTES / 4 && bytesWritten > MEMTABLE_BUDGET_BYTES / 4,
                    "the counts' records reached the memtables before any commit: " + memory);
            // The memtable budget lets a write in while the memtables are under it, and a buffer
            // written early lands on top of them, charged at the memtable's own (larger) estimate of
            // its small records; the sampler reads the two figures apart. A loose bound, then: the
            // memtables, and memtables and buffers together, within three times the budget.
            assertTrue(memtablePeak <= 3 * MEMTABLE_BUDGET_BYTES && totalPeak <= 3 * MEMTABLE_BUDGET_BYTES
                            && memtable + writeBuffer <= 3 * MEMTABLE_BUDGET_BYTES,
                    "memtables and write buffers within three times the budget of " + MEMTABLE_BUDGET_BYTES + ": "
                            + memory);
            assertTrue(cache <= CACHE_BYTES && cachePeak <= CACHE_BYTES,
                    "block cache within " + CACHE_BYTES + ": " + memory);
            assertTrue(heapUsed > 0 && heapUsed < XMX_BYTES, "heap used within " + XMX + ": " + memory);
            long direct = figure(memory, "directUsed");
            long directPeak = figure(memory, "directPeak");
            long rss = figure(memory, "rss");
            long rssPeak = figure(memory, "rssPeak");
            assertTrue(direct >= 0 && directPeak >= direct, "direct memory now and at its peak: " + memory);
            assertTrue(rss > heapUsed && rssPeak >= rss, "the resident set holds at least the heap in use: " + memory);
            if (offHeap) {
                // Memtable arenas and cached pages are direct buffers: the memtables' peak was in direct memory.
                assertTrue(directPeak > 0, "memtables off the heap use direct memory: " + memory);
            }
            System.out.printf("instance %s: shared budget used %,d bytes (memtables %,d, write buffers %,d, block cache"
                            + " %,d) of %,d; peaks memtables %,d, write buffers %,d, both %,d, block cache %,d; heap used"
                            + " after a full GC %,d bytes; stores' bytes written %,d; off heap %s: direct memory %,d"
                            + " bytes (peak %,d, %d buffers), mapped %,d; resident set %,d bytes (peak %,d)%n",
                    e.getKey(), memtable + writeBuffer + cache, memtable, writeBuffer, cache,
                    CACHE_BYTES + MEMTABLE_BUDGET_BYTES, memtablePeak, writeBufferPeak, totalPeak, cachePeak, heapUsed,
                    bytesWritten, offHeap, direct, directPeak, figure(memory, "directBuffers"),
                    figure(memory, "mappedUsed"), rss, rssPeak);
        }
        System.out.printf("%,d records, %d partitions, %d keys%n", RECORDS, PARTITIONS, KEYS);
    }
}
