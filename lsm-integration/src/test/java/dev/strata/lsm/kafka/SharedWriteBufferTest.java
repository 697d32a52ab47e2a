package dev.strata.lsm.kafka;

import dev.strata.lsm.SharedResources;
import dev.strata.lsm.testkit.TestSeed;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.WindowKeySchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kafka stores' write buffers in the application's shared budget ({@link WriteBufferLimit}):
 * under exactly-once Kafka Streams commits a running task's stores only when it suspends or
 * closes it, so without a commit the buffers are all that bounds their memory. Stores driven
 * directly ({@link TestStoreContext}), with {@code strata.memtable.budget.bytes} set.
 */
class SharedWriteBufferTest {
    private static final AtomicLong APPS = new AtomicLong();
    private static final TopicPartition KV_CHANGELOG = new TopicPartition("app-kv-changelog", 0);
    private static final TopicPartition WINDOW_CHANGELOG = new TopicPartition("app-w-changelog", 0);
    private static final long RETENTION = 3_600_000;
    private static final long WINDOW = 60_000;
    /** A record's accounted bytes are under this (48 bytes of entry, key, time suffix, 100-byte value). */
    private static final long RECORD_SLACK = 256;

    @TempDir
    Path root;

    private final List<StateStore> opened = new ArrayList<>();
    /** The context each store was opened with (its restore callback). */
    private final Map<StateStore, TestStoreContext> contexts = new java.util.IdentityHashMap<>();

    @AfterEach
    void closeStores() {
        for (StateStore s : opened) {
            s.close();
        }
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A context of task 0_{@code partition} in {@code stateDir} with the shared budget of {@code appId}. */
    private static TestStoreContext context(Path stateDir, int partition, boolean exactlyOnce, String appId,
                                            long budgetBytes) {
        TestStoreContext c = new TestStoreContext(stateDir.toFile(), partition, exactlyOnce);
        c.appConfigs().put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        c.appConfigs().put(StrataStoreConfigs.MEMTABLE_BUDGET_BYTES_CONFIG, budgetBytes);
        c.appConfigs().put(StrataStoreConfigs.BLOCK_CACHE_BYTES_CONFIG, 1L << 20);
        c.appConfigs().put(StrataStoreConfigs.BACKGROUND_THREADS_CONFIG, 2);
        return c;
    }

    private static String newApp() {
        return "write-buffer-budget-" + APPS.incrementAndGet() + "-" + System.nanoTime();
    }

    private StrataKeyValueStore kv(TestStoreContext context) {
        StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("kv").get();
        store.init(context, store);
        opened.add(store);
        contexts.put(store, context);
        return store;
    }

    private StrataWindowStore window(TestStoreContext context) {
        StrataWindowStore store = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                Duration.ofMillis(RETENTION), Duration.ofMillis(WINDOW), false).get();
        store.init(context, store);
        opened.add(store);
        contexts.put(store, context);
        return store;
    }

    private static String padded(Random random) {
        return String.format("%0100d", random.nextInt(1_000_000));
    }

    @Test
    void severalStoresKeepTheirWriteBuffersTogetherWithinTheSharedBudgetWithoutCommits() {
        long budget = 256L << 10;
        String app = newApp();
        long seed = TestSeed.orRandom();
        Random random = new Random(seed);
        List<StrataKeyValueStore> kvs = new ArrayList<>();
        List<StrataWindowStore> windows = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            kvs.add(kv(context(root.resolve("kv" + p), p, true, app, budget)));
        }
        windows.add(window(context(root.resolve("w0"), 3, true, app, budget)));
        SharedResources shared = StrataStoreConfigs.sharedIfMade(app);
        assertEquals(budget, shared.memtableBudgetBytes());
        List<Map<String, String>> kvModel = new ArrayList<>();
        List<Map<String, String>> windowModel = new ArrayList<>();
        kvs.forEach(s -> kvModel.add(new HashMap<>()));
        windows.forEach(s -> windowModel.add(new HashMap<>()));

        // 4x the budget in records (about 160 accounted bytes each), no commit: under exactly-once
        // Kafka Streams commits a running task's stores only at suspend or close. (The memtables
        // of a budget this small flush often, and writes wait for the flushes: keep it short.)
        long records = 4 * budget / 160;
        long peakBuffered = 0;
        long peakMemtables = 0;
        for (long i = 0; i < records; i++) {
            String k = "k" + random.nextInt(20_000);
            String v = padded(random);
            int s = (int) (i % 4);
            if (s < 3) {
                kvs.get(s).put(key(k), value(v));
                kvModel.get(s).put(k, v);
            } else {
                long start = random.nextInt(30) * WINDOW;
                windows.get(0).put(key(k), value(v), start);
                windowModel.get(0).put(k + "@" + start, v);
            }
            long buffered = shared.writeBufferBytesUsed();
            assertTrue(buffered <= budget + RECORD_SLACK, "seed " + seed + ": after record " + i + " the write buffers"
                    + " hold " + buffered + " bytes, over the budget of " + budget + " plus one record");
            peakBuffered = Math.max(peakBuffered, buffered);
            peakMemtables = Math.max(peakMemtables, shared.memtableBytesUsed());
        }
        assertTrue(peakBuffered > budget / 2, "the buffers held data: peak " + peakBuffered);
        assertTrue(peakMemtables > budget / 2, "buffers were written into the stores' memtables: peak " + peakMemtables);
        long perStore = 0;
        for (StrataKeyValueStore s : kvs) {
            perStore += s.bufferedBytes();
        }
        for (StrataWindowStore s : windows) {
            perStore += s.bufferedBytes();
        }
        assertEquals(shared.writeBufferBytesUsed(), perStore, "the shared figure is the sum of the stores' buffers");

        // Every store answers its newest values, whether buffered or written early.
        for (int s = 0; s < kvs.size(); s++) {
            for (Map.Entry<String, String> e : kvModel.get(s).entrySet()) {
                assertArrayEquals(value(e.getValue()), kvs.get(s).get(key(e.getKey())), "kv " + s + " key " + e.getKey());
            }
        }
        for (int s = 0; s < windows.size(); s++) {
            for (Map.Entry<String, String> e : windowModel.get(s).entrySet()) {
                String[] kt = e.getKey().split("@");
                assertArrayEquals(value(e.getValue()), windows.get(s).fetch(key(kt[0]), Long.parseLong(kt[1])),
                        "window store " + s + " " + e.getKey());
            }
        }
        for (StateStore s : opened) {
            s.close();
        }
        opened.clear();
        assertEquals(0, shared.writeBufferBytesUsed(), "closed stores reserve nothing");
    }

    /**
     * Three stream threads, each the only writer of its own store (Kafka's single-writer rule),
     * share the budget: each writes its own buffer when it finds the total over, so the buffers
     * stay within the budget plus a record per thread, and no store is written by another thread.
     */
    @Test
    void streamThreadsSharingTheBudgetEachWriteTheirOwnBuffer() throws Exception {
        long budget = 128L << 10;
        int threads = 3;
        String app = newApp();
        List<StrataKeyValueStore> stores = new ArrayList<>();
        for (int p = 0; p < threads; p++) {
            stores.add(kv(context(root.resolve("thread" + p), p, true, app, budget)));
        }
        SharedResources shared = StrataStoreConfigs.sharedIfMade(app);
        long records = 3 * budget / 160 / threads;
        AtomicLong peak = new AtomicLong();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            StrataKeyValueStore store = stores.get(t);
            int owner = t;
            writers.add(new Thread(() -> {
                try {
                    for (int i = 0; i < records; i++) {
                        store.put(key("t" + owner + "-" + i), value(String.format("%0100d", i)));
                        long buffered = shared.writeBufferBytesUsed();
                        peak.accumulateAndGet(buffered, Math::max);
                        if (buffered > budget + threads * RECORD_SLACK) {
                            throw new AssertionError("write buffers hold " + buffered + " bytes, over the budget of "
                                    + budget + " plus a record per thread");
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "stream-thread-" + t));
        }
        writers.forEach(Thread::start);
        for (Thread w : writers) {
            w.join(60_000);
        }
        assertTrue(failures.isEmpty(), failures.toString());
        assertTrue(peak.get() > budget / 2, "the buffers held data: peak " + peak.get());
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < records; i += 97) {
                assertArrayEquals(value(String.format("%0100d", i)), stores.get(t).get(key("t" + t + "-" + i)));
            }
        }
    }

    @Test
    void withoutSharedResourcesTheBuffersKeepTheirOwnCapAndReserveNothing() {
        TestStoreContext context = new TestStoreContext(root.resolve("plain").toFile(), 0, true);
        String app = newApp();
        context.appConfigs().put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        StrataKeyValueStore store = kv(context);
        for (int i = 0; i < 2_000; i++) {
            store.put(key("k" + i), value("v".repeat(100)));
        }
        assertTrue(store.bufferedBytes() > 2_000 * 100, "all buffered: " + store.bufferedBytes());
        assertNull(StrataStoreConfigs.sharedIfMade(app));
    }

    /**
     * A copy of every file under {@code source}, taken now (the stores open): what a process kill
     * leaves. The stores' flushes and merges may still delete files while it copies (on a loaded
     * machine five copies in a row lost that race): each attempt first waits, up to 30 s, until
     * the set of files stays the same for 300 ms, and a copy that lost a file is taken again.
     */
    private Path crashImage(Path source, String name) throws IOException {
        for (int attempt = 1; ; attempt++) {
            awaitSameFiles(source);
            Path target = root.resolve(name + "-" + attempt);
            try (Stream<Path> walk = Files.walk(source)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    Path t = target.resolve(source.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(t);
                    } else {
                        Files.copy(p, t);
                    }
                }
                return target;
            } catch (java.nio.file.NoSuchFileException | java.io.UncheckedIOException e) {
                // A flush or merge deleted a file during the copy: copy again, elsewhere.
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    /** Waits until the files under {@code dir} stay the same for 300 ms, at most 30 s. */
    private static void awaitSameFiles(Path dir) throws IOException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        java.util.Set<Path> before = filesUnder(dir);
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            java.util.Set<Path> now = filesUnder(dir);
            if (now.equals(before)) {
                return;
            }
            before = now;
        }
    }

    private static java.util.Set<Path> filesUnder(Path dir) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> walk = Files.walk(dir)) {
                return walk.collect(java.util.stream.Collectors.toSet());
            } catch (java.nio.file.NoSuchFileException | java.io.UncheckedIOException e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, byte[] key, byte[] value) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, key, value);
    }

    /**
     * Records written early for the budget, then a kill before any commit: under exactly-once
     * the stores were never marked closed, so reopening them is task corruption (Kafka Streams
     * wipes the task and restores it from the changelog, as it does for RocksDB's uncommitted
     * data); under at-least-once they open with the early records, ahead of their offsets, and a
     * replay of the changelog from those offsets gives the right state.
     */
    @Test
    void recordsWrittenEarlyAreCoveredByTheOpenMarkerAfterACrash() throws IOException {
        for (boolean exactlyOnce : new boolean[] {true, false}) {
            long budget = 64L << 10;
            String app = newApp();
            Path stateDir = root.resolve("task-" + exactlyOnce);
            TestStoreContext kvContext = context(stateDir, 0, exactlyOnce, app, budget);
            TestStoreContext windowContext = context(stateDir, 0, exactlyOnce, app, budget);
            StrataKeyValueStore kv = kv(kvContext);
            StrataWindowStore window = window(windowContext);
            SharedResources shared = StrataStoreConfigs.sharedIfMade(app);

            // A committed state: 10 records in each, offsets 0..9.
            List<ConsumerRecord<byte[], byte[]>> kvChangelog = new ArrayList<>();
            List<ConsumerRecord<byte[], byte[]>> windowChangelog = new ArrayList<>();
            Map<String, String> kvModel = new HashMap<>();
            Map<String, String> windowModel = new HashMap<>();
            int n = 0;
            for (; n < 10; n++) {
                put(kv, window, n, "committed", kvChangelog, windowChangelog, kvModel, windowModel);
            }
            kv.commit(Map.of(KV_CHANGELOG, 9L));
            window.commit(Map.of(WINDOW_CHANGELOG, 9L));
            // Then 3x the budget of uncommitted records: most are written early, without offsets.
            long peak = 0;
            for (; n < 10 + 3 * budget / 160; n++) {
                put(kv, window, n, "uncommitted", kvChangelog, windowChangelog, kvModel, windowModel);
                peak = Math.max(peak, shared.writeBufferBytesUsed());
            }
            assertTrue(peak <= budget + RECORD_SLACK, "buffers within the budget: " + peak);
            Path image = crashImage(stateDir, "crash-" + exactlyOnce);

            // What the kill left holds uncommitted records (read under at-least-once, which opens it as it is).
            Path peek = crashImage(image, "peek-" + exactlyOnce);
            StrataKeyValueStore peekKv = kv(context(peek, 0, false, newApp(), budget));
            assertEquals(9L, peekKv.committedOffset(KV_CHANGELOG), "early writes do not move the offsets");
            assertArrayEquals(value(kvModel.get("k10")), peekKv.get(key("k10")),
                    "an uncommitted record written early is in the kill image");
            StrataWindowStore peekWindow = window(context(peek, 0, false, newApp(), budget));
            assertEquals(9L, peekWindow.committedOffset(WINDOW_CHANGELOG));
            assertArrayEquals(value(windowModel.get("k10@" + windowStart(10))), peekWindow.fetch(key("k10"),
                    windowStart(10)), "an uncommitted window record written early is in the kill image");

            if (exactlyOnce) {
                StrataKeyValueStore eosKv = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("kv").get();
                assertThrows(TaskCorruptedException.class, () -> eosKv.init(context(image, 0, true, app, budget), eosKv));
                StrataWindowStore eosWindow = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                        Duration.ofMillis(RETENTION), Duration.ofMillis(WINDOW), false).get();
                assertThrows(TaskCorruptedException.class,
                        () -> eosWindow.init(context(image, 0, true, app, budget), eosWindow));
                continue;
            }
            // At-least-once: the stores open as they are, at the committed offsets, and the
            // changelog's records after them are replayed (idempotent puts) to the right state.
            StrataKeyValueStore alosKv = kv(context(image, 0, false, newApp(), budget));
            StrataWindowStore alosWindow = window(context(image, 0, false, newApp(), budget));
            assertEquals(9L, alosKv.committedOffset(KV_CHANGELOG));
            assertEquals(9L, alosWindow.committedOffset(WINDOW_CHANGELOG));
            ((RecordBatchingStateRestoreCallback) contexts.get(alosKv).restoreCallback)
                    .restoreBatch(kvChangelog.subList(10, kvChangelog.size()));
            ((RecordBatchingStateRestoreCallback) contexts.get(alosWindow).restoreCallback)
                    .restoreBatch(windowChangelog.subList(10, windowChangelog.size()));
            for (Map.Entry<String, String> e : kvModel.entrySet()) {
                assertArrayEquals(value(e.getValue()), alosKv.get(key(e.getKey())), e.getKey());
            }
            for (Map.Entry<String, String> e : windowModel.entrySet()) {
                String[] kt = e.getKey().split("@");
                assertArrayEquals(value(e.getValue()), alosWindow.fetch(key(kt[0]), Long.parseLong(kt[1])), e.getKey());
            }
            assertEquals(kvChangelog.get(kvChangelog.size() - 1).offset(), alosKv.committedOffset(KV_CHANGELOG));
        }
    }


    private static long windowStart(int n) {
        return (n % 20) * WINDOW;
    }

    /** Record {@code n} into both stores and their changelogs (offset n) and models. */
    private static void put(StrataKeyValueStore kv, StrataWindowStore window, int n, String kind,
                            List<ConsumerRecord<byte[], byte[]>> kvChangelog,
                            List<ConsumerRecord<byte[], byte[]>> windowChangelog,
                            Map<String, String> kvModel, Map<String, String> windowModel) {
        String k = "k" + n;
        String v = kind + "-" + String.format("%090d", n);
        kv.put(key(k), value(v));
        kvChangelog.add(record(KV_CHANGELOG, n, key(k).get(), value(v)));
        kvModel.put(k, v);
        long start = windowStart(n);
        window.put(key(k), value(v), start);
        windowChangelog.add(record(WINDOW_CHANGELOG, n, WindowKeySchema.toStoreKeyBinary(key(k), start, 0).get(),
                value(v)));
        windowModel.put(k + "@" + start, v);
    }
}
