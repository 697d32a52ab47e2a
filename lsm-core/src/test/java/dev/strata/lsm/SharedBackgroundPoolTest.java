package dev.strata.lsm;

import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One background thread pool for many stores ({@link SharedResources.Builder#backgroundThreads}). */
class SharedBackgroundPoolTest {
    private static final int MEMTABLE = 16 << 10;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(Random rnd, int store) {
        byte[] v = new byte[100 + rnd.nextInt(100)];
        rnd.nextBytes(v);
        v[0] = (byte) store;
        return v;
    }

    private static Set<String> strataThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("strata-")).collect(Collectors.toSet());
    }

    /** Waits up to 10 s for the strata threads to be {@code expected} again (ended threads take a moment to go). */
    private static void awaitThreads(Set<String> expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!strataThreads().equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, strataThreads(), "strata threads left behind");
    }

    private static StoreConfig.Builder config(SharedResources shared) {
        return StoreConfig.builder().memtableBytes(MEMTABLE).sharedResources(shared)
                .mergePolicy("size-tiered", Map.of("fanout", "2"));
    }

    /** Random puts, overwrites and deletes of {@code ops} operations into {@code store} and its model. */
    private static void write(LsmStore store, TreeMap<Integer, byte[]> model, Random rnd, int storeNumber, int ops) {
        for (int op = 0; op < ops; op++) {
            int k = rnd.nextInt(400);
            if (rnd.nextInt(10) == 0) {
                store.delete(key(k));
                model.remove(k);
            } else {
                byte[] v = value(rnd, storeNumber);
                store.put(key(k), v);
                model.put(k, v);
            }
        }
    }

    private static void check(LsmStore store, TreeMap<Integer, byte[]> model, String name) {
        for (int k = 0; k < 400; k++) {
            byte[] expected = model.get(k);
            if (expected == null) {
                assertNull(store.get(key(k)), name + " key " + k);
            } else {
                assertArrayEquals(expected, store.get(key(k)), name + " key " + k);
            }
        }
        int scanned = 0;
        try (Cursor c = store.scan(key(0), key(400))) {
            while (c.next()) {
                scanned++;
            }
        }
        assertEquals(model.size(), scanned, name + " scan");
    }

    private static void awaitMerged(List<LsmStore> stores) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stores.stream().anyMatch(s -> s.stats().mergeCount() == 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    @Test
    void hundredStoresOnTwoSharedThreadsAllFlushAndMergeAndLeaveNoThread() throws Exception {
        int stores = 100;
        Random rnd = new Random(TestSeed.orDefault(31));
        Set<String> before = strataThreads();
        try (SharedResources shared = SharedResources.builder().blockCacheBytes(1 << 20).backgroundThreads(2).build()) {
            StoreConfig config = config(shared).build();
            List<LsmStore> open = new ArrayList<>();
            List<TreeMap<Integer, byte[]>> models = new ArrayList<>();
            long opening = System.nanoTime();
            for (int s = 0; s < stores; s++) {
                open.add(LsmStore.open(dir.resolve("s" + s), config));
                models.add(new TreeMap<>());
            }
            long t0 = System.nanoTime();
            // ~2.5 memtables a store, written round robin: every store flushes several times
            // and size-tiered (fanout 2) merges what it flushed.
            for (int round = 0; round < 5; round++) {
                for (int s = 0; s < stores; s++) {
                    write(open.get(s), models.get(s), rnd, s, 50);
                }
            }
            long t1 = System.nanoTime();
            awaitMerged(open);
            System.out.printf("SharedBackgroundPoolTest: opened in %d ms, written in %d ms, merged %d ms later%n",
                    TimeUnit.NANOSECONDS.toMillis(t0 - opening), TimeUnit.NANOSECONDS.toMillis(t1 - t0), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
            Set<String> during = strataThreads();
            during.removeAll(before);
            for (int s = 0; s < stores; s++) {
                LsmStore store = open.get(s);
                assertTrue(store.stats().flushCount() >= 2, "store " + s + " flushes " + store.stats().flushCount());
                assertTrue(store.stats().mergeCount() >= 1, "store " + s + " merged nothing");
                check(store, models.get(s), "store " + s);
            }
            // One flush thread, one merge thread, the decision thread, at most two block-merge threads:
            // none of them a store's own.
            System.out.println("SharedBackgroundPoolTest: " + stores + " stores ran on threads " + during);
            assertTrue(during.size() <= 5, "threads " + during);
            assertTrue(during.stream().allMatch(n -> n.startsWith("strata-shared-")), "threads " + during);
            for (LsmStore s : open) {
                s.close();
            }
            // The pool outlives its stores: a store opened again runs on it, its data intact.
            try (LsmStore again = LsmStore.open(dir.resolve("s7"), config)) {
                check(again, models.get(7), "reopened store 7");
                write(again, models.get(7), rnd, 7, 300);
                again.flush();
                check(again, models.get(7), "reopened store 7 after writes");
            }
        }
        awaitThreads(before);
    }

    /**
     * The one merge thread is held by store B's merge. Store A still flushes (flushes have their
     * own thread), its close returns at once with its merges still queued behind B's (they are
     * the store's own jobs: close runs them, finding the store closed), while C is written by
     * another thread; then every store's data is intact and A, reopened, merges.
     */
    @Test
    void closingOneStoreWaitsForItsOwnJobsOnlyWhileOthersWork() throws Exception {
        Random rnd = new Random(TestSeed.orDefault(32));
        CountDownLatch bMerging = new CountDownLatch(1);
        CountDownLatch releaseB = new CountDownLatch(1);
        AtomicBoolean blockOnce = new AtomicBoolean(true);
        StoreListener holdsTheMergeThread = new StoreListener() {
            @Override
            public void mergeStarted(String reason) {
                if (blockOnce.compareAndSet(true, false)) {
                    bMerging.countDown();
                    try {
                        releaseB.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        Set<String> before = strataThreads();
        try (SharedResources shared = SharedResources.builder().backgroundThreads(2).build()) {
            LsmStore b = LsmStore.open(dir.resolve("b"), config(shared).listener(holdsTheMergeThread).build());
            LsmStore a = LsmStore.open(dir.resolve("a"), config(shared).build());
            LsmStore c = LsmStore.open(dir.resolve("c"), config(shared).build());
            TreeMap<Integer, byte[]> modelA = new TreeMap<>();
            TreeMap<Integer, byte[]> modelB = new TreeMap<>();
            TreeMap<Integer, byte[]> modelC = new TreeMap<>();
            try {
                for (int i = 0; i < 3; i++) {
                    write(b, modelB, rnd, 2, 100);
                    b.flush();
                }
                assertTrue(bMerging.await(10, TimeUnit.SECONDS), "B's merge did not start");

                for (int i = 0; i < 4; i++) {
                    write(a, modelA, rnd, 1, 100);
                    a.flush();  // returns once flushed: the flush thread is not the merge thread B holds
                }
                assertTrue(a.stats().flushCount() >= 4, "A flushed " + a.stats().flushCount());
                assertEquals(0, a.stats().mergeCount(), "A's merges wait behind B's");

                // A bounded load (~6 memtables): C's merges wait behind B's too, and size-tiered
                // would stop writers at 24 runs.
                AtomicReference<Throwable> writerFailed = new AtomicReference<>();
                Random writerRnd = new Random(rnd.nextLong());
                Thread writer = new Thread(() -> {
                    try {
                        for (int round = 0; round < 30; round++) {
                            write(c, modelC, writerRnd, 3, 20);
                            Thread.sleep(5);
                        }
                    } catch (Throwable t) {
                        writerFailed.set(t);
                    }
                });
                writer.start();
                long t0 = System.nanoTime();
                a.close();
                long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertTrue(closeMillis < 5_000, "A's close took " + closeMillis + " ms");
                assertEquals(1, releaseB.getCount(), "B's merge still holds the merge thread");
                assertThrows(StoreClosedException.class, () -> a.get(key(0)));
                writer.join();
                assertNull(writerFailed.get(), () -> "writer of C failed: " + writerFailed.get());
                assertTrue(c.stats().flushCount() > 0, "C flushed nothing");

                releaseB.countDown();
                awaitMerged(List.of(b));
                assertTrue(b.stats().mergeCount() > 0, "B merged nothing");
                check(b, modelB, "B");
                check(c, modelC, "C");
                try (LsmStore reopened = LsmStore.open(dir.resolve("a"), config(shared).build())) {
                    check(reopened, modelA, "A reopened");
                    awaitMerged(List.of(reopened));
                    assertTrue(reopened.stats().mergeCount() > 0, "A, reopened, merged nothing");
                    check(reopened, modelA, "A reopened and merged");
                }
            } finally {
                releaseB.countDown();
                b.close();
                c.close();
                a.close();
            }
        }
        awaitThreads(before);
    }

    @Test
    void aStoreStillOpenWhenThePoolClosesCanStillBeClosed() throws Exception {
        Set<String> before = strataThreads();
        SharedResources shared = SharedResources.builder().backgroundThreads(2).build();
        LsmStore store = LsmStore.open(dir.resolve("x"), config(shared).build());
        TreeMap<Integer, byte[]> model = new TreeMap<>();
        write(store, model, new Random(TestSeed.orDefault(33)), 1, 50);
        shared.close();
        awaitThreads(before);
        check(store, model, "x after its pool closed");
        long t0 = System.nanoTime();
        store.close();
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "close hung");
        ConfigException e = assertThrows(ConfigException.class,
                () -> LsmStore.open(dir.resolve("y"), config(shared).build()));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void badThreadCountsAreRefused() {
        ConfigException e = assertThrows(ConfigException.class, () -> SharedResources.builder().backgroundThreads(1));
        assertTrue(e.getMessage().contains("backgroundThreads"), e.getMessage());
        assertThrows(ConfigException.class, () -> SharedResources.builder().backgroundThreads(-1));
        assertThrows(ConfigException.class, () -> SharedResources.builder().backgroundThreads(257));
        try (SharedResources none = SharedResources.builder().build()) {
            assertNull(none.backgroundPool());
        }
    }
}
