package dev.strata.lsm;

import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One block cache and one memtable budget for many stores ({@link SharedResources}). */
class SharedResourcesTest {
    private static final int MEMTABLE = 64 << 10;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(StandardCharsets.UTF_8);
    }

    /** A value that names its store: a page of another store's table would show. */
    private static byte[] value(int store, int i) {
        byte[] v = new byte[400];
        Arrays.fill(v, (byte) store);
        System.arraycopy(key(i), 0, v, 0, 10);
        return v;
    }

    private static long strataThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("strata-")).count();
    }

    /** Bytes of direct buffers the JVM holds now. */
    private static long directBytes() {
        return java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)
                .stream().filter(b -> b.getName().equals("direct")).mapToLong(
                        java.lang.management.BufferPoolMXBean::getMemoryUsed).sum();
    }

    /**
     * Direct bytes once earlier tests' unreachable buffers are freed: collections until two
     * readings 100 ms apart agree (their cleaners run after the collection, late under load), at
     * most 5 s.
     */
    private static long settledDirectBytes() throws InterruptedException {
        long last = -1;
        for (int i = 0; i < 50; i++) {
            System.gc();
            Thread.sleep(100);
            long now = directBytes();
            if (now == last) {
                return now;
            }
            last = now;
        }
        return last;
    }

    @Test
    void offHeapResourcesKeepTheStoresMemtablesAndPagesInDirectMemory() throws Exception {
        int stores = 4;
        int perStore = 200;
        long directBefore = settledDirectBytes();
        try (SharedResources shared = SharedResources.builder().blockCacheBytes(1 << 20)
                .memtableBudgetBytes(4 << 20).offHeap(true).build()) {
            assertTrue(shared.offHeap());
            assertTrue(shared.toString().contains("offHeap=true"), shared.toString());
            // The store's own setting is off: the shared resources put its memtables off the heap.
            StoreConfig config = StoreConfig.builder().memtableBytes(MEMTABLE).backgroundThreads(1)
                    .sharedResources(shared).build();
            List<LsmStore> open = new ArrayList<>();
            for (int s = 0; s < stores; s++) {
                open.add(LsmStore.open(dir.resolve("o" + s), config));
            }
            long memtableBytes = 0;
            for (int i = 0; i < perStore; i++) {
                for (int s = 0; s < stores; s++) {
                    open.get(s).put(key(i), value(s, i));
                }
            }
            for (LsmStore s : open) {
                memtableBytes += s.stats().memtableBytes();
            }
            long grown = directBytes() - directBefore;
            assertTrue(memtableBytes > 0);
            // The arenas' chunks are allocated ahead of use, so they hold at least what the memtables charge.
            assertTrue(grown >= memtableBytes, "direct memory grew " + grown + " B for " + memtableBytes
                    + " B of memtables");
            for (int s = 0; s < stores; s++) {
                open.get(s).flush();
            }
            for (int round = 0; round < 2; round++) { // the second round reads through the cache's direct pages
                for (int s = 0; s < stores; s++) {
                    for (int i = 0; i < perStore; i++) {
                        assertArrayEquals(value(s, i), open.get(s).get(key(i)), "store " + s + " key " + i);
                    }
                }
            }
            assertTrue(shared.blockCacheWeightedBytes() > 0);
            for (LsmStore s : open) {
                s.close();
            }
            LsmStore again = LsmStore.open(dir.resolve("o0"), StoreConfig.builder().offHeap(false).build());
            try {
                assertArrayEquals(value(0, 7), again.get(key(7)), "reopened on the heap");
            } finally {
                again.close();
            }
        }
    }

    @Test
    void hundredStoresStayWithinTheBudgetAndShareOneCache() throws Exception {
        int stores = 100;
        long budget = 1 << 20;
        long cacheBytes = 512 << 10;
        long threadsBefore = strataThreads();
        try (SharedResources shared = SharedResources.builder().blockCacheBytes(cacheBytes)
                .memtableBudgetBytes(budget).build()) {
            StoreConfig config = StoreConfig.builder().memtableBytes(MEMTABLE).backgroundThreads(1)
                    .sharedResources(shared).build();
            List<LsmStore> open = new ArrayList<>();
            for (int s = 0; s < stores; s++) {
                open.add(LsmStore.open(dir.resolve("s" + s), config));
            }
            AtomicLong maxUsed = new AtomicLong();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (writing.get()) {
                    maxUsed.accumulateAndGet(shared.memtableBytesUsed(), Math::max);
                    Thread.onSpinWait();
                }
            });
            sampler.start();
            int perStore = 120;  // 100 stores x 120 x ~470 B (with the memtable's overhead) = 5.6 MB through 1 MiB
            for (int i = 0; i < perStore; i++) {
                for (int s = 0; s < stores; s++) {
                    open.get(s).put(key(i), value(s, i));
                }
            }
            writing.set(false);
            sampler.join();
            long sum = 0;
            for (LsmStore s : open) {
                sum += s.stats().memtableBytes();
            }
            long threads = strataThreads() - threadsBefore;
            long flushCount = 0;
            for (LsmStore s : open) {
                flushCount += s.stats().flushCount();
            }
            System.out.printf("SharedResourcesTest: %d flushes; %d stores, budget %d B, memtable %d B: max memtable bytes sampled %d,"
                    + " at the end %d; strata threads %d%n", flushCount, stores, budget, MEMTABLE, maxUsed.get(), sum, threads);
            // Writes wait while the memtables hold more than the budget: what passes it is the write admitted
            // last and what a sum read during switches and flushes miscounts, well under one memtable.
            assertTrue(maxUsed.get() <= budget + MEMTABLE,
                    "memtables held " + maxUsed.get() + " B, over " + budget + " + " + MEMTABLE);
            assertTrue(sum <= budget + MEMTABLE);
            // Each store is written ~56 KB, under its own 64 KiB memtable: without the budget none would flush
            // and the memtables would hold 5.6 MB. Every flush is the budget's doing.
            long flushes = 0;
            for (LsmStore s : open) {
                flushes += s.stats().flushCount();
            }
            assertTrue(flushes > 0, "flushes " + flushes);

            // Reads through the one cache: every store's own values (their tables are numbered alike).
            for (int round = 0; round < 2; round++) {
                for (int s = 0; s < stores; s++) {
                    for (int i = 0; i < perStore; i += 13) {
                        assertArrayEquals(value(s, i), open.get(s).get(key(i)), "store " + s + " key " + i);
                    }
                }
            }
            assertTrue(shared.blockCacheWeightedBytes() <= cacheBytes,
                    "cache holds " + shared.blockCacheWeightedBytes() + " of " + cacheBytes);
            assertTrue(shared.blockCacheWeightedBytes() > 0);
            long hits = 0;
            for (LsmStore s : open) {
                hits += s.stats().blockCacheHits();
            }
            assertTrue(hits > 0);
            // Threads are per store (not shared): at most the pools' sizes of each, plus the budget's one.
            assertTrue(threads <= stores * 5L + 1, "threads " + threads);

            // Closing a store gives its share back.
            assertEquals(stores, shared.memtableBudget().members());
            for (int s = 0; s < stores / 2; s++) {
                open.get(s).close();
            }
            assertEquals(stores - stores / 2, shared.memtableBudget().members());
            long left = 0;
            for (int s = stores / 2; s < stores; s++) {
                left += open.get(s).stats().memtableBytes();
            }
            assertEquals(left, shared.memtableBytesUsed());
            for (int s = stores / 2; s < stores; s++) {
                open.get(s).close();
            }
            assertEquals(0, shared.memtableBytesUsed());
            assertEquals(0, shared.memtableBudget().members());
        }
    }

    @Test
    void overBudgetTheLargestActiveMemtableIsFlushedEvenInAStoreNotWritten() throws Exception {
        try (SharedResources shared = SharedResources.builder().memtableBudgetBytes(80 << 10).build()) {
            StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).sharedResources(shared).build();
            try (LsmStore a = LsmStore.open(dir.resolve("a"), config);
                 LsmStore b = LsmStore.open(dir.resolve("b"), config)) {
                int i = 0;
                while (a.stats().memtableBytes() < 60 << 10) {
                    a.put(key(i), value(1, i));
                    i++;
                }
                assertEquals(0, a.stats().flushCount());
                for (int j = 0; j < 50; j++) {
                    b.put(key(j), value(2, j));  // ~25 KiB: together past 7/8 of 80 KiB
                }
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (a.stats().flushCount() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertEquals(1, a.stats().flushCount(), "a's memtable was the largest: switched and flushed");
                assertArrayEquals(value(1, 0), a.get(key(0)));
            }
        }
    }

    @Test
    void aClosedSharedResourcesOpensNoStore() {
        SharedResources shared = SharedResources.builder().memtableBudgetBytes(1 << 20).build();
        shared.close();
        StoreConfig config = StoreConfig.builder().sharedResources(shared).build();
        ConfigException e = assertThrows(ConfigException.class, () -> LsmStore.open(dir.resolve("x"), config));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(ConfigException.class, () -> SharedResources.builder().memtableBudgetBytes(-1));
        assertThrows(ConfigException.class, () -> SharedResources.builder().blockCacheBytes(-1));
    }

    @Test
    void writeBufferReservationsCountWithTheMemtablesAgainstTheBudget() throws Exception {
        long budget = 64 << 10;
        try (SharedResources shared = SharedResources.builder().memtableBudgetBytes(budget).build()) {
            assertEquals(budget, shared.memtableBudgetBytes());
            WriteBufferReservation a = shared.reserveWriteBuffer();
            WriteBufferReservation b = shared.reserveWriteBuffer();
            assertFalse(a.resize(20 << 10));
            assertFalse(b.resize(30 << 10));
            assertEquals(50 << 10, shared.writeBufferBytesUsed());
            assertTrue(b.resize(45 << 10), "65 KiB of write buffers: over the 64 KiB budget");
            assertFalse(b.resize(10 << 10), "shrinking releases");
            assertEquals(30 << 10, shared.writeBufferBytesUsed());
            assertThrows(IllegalArgumentException.class, () -> a.resize(-1));
            assertEquals(20 << 10, a.bytes(), "a refused size changes nothing");

            // The memtables count too: 30 KiB of buffers and 40 KiB of a store's memtable are over.
            StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).sharedResources(shared).build();
            try (LsmStore store = LsmStore.open(dir.resolve("m"), config)) {
                int i = 0;
                while (shared.memtableBytesUsed() < 40 << 10) {
                    store.put(key(i), value(1, i));
                    i++;
                }
                assertTrue(shared.memtableBytesUsed() + shared.writeBufferBytesUsed() > budget);
                assertTrue(a.resize(a.bytes()), "memtables and buffers together are over the budget");
                assertFalse(a.resize(0), "an empty buffer is never asked to be written");
            }
            b.close();
            b.close();
            assertEquals(0, shared.writeBufferBytesUsed());
            assertThrows(IllegalStateException.class, () -> b.resize(1));
            a.close();
        }
        // Without a budget the reservations are counted, never over.
        try (SharedResources shared = SharedResources.builder().blockCacheBytes(1 << 20).build()) {
            assertEquals(0, shared.memtableBudgetBytes());
            WriteBufferReservation r = shared.reserveWriteBuffer();
            assertFalse(r.resize(1L << 40));
            assertEquals(1L << 40, shared.writeBufferBytesUsed());
            r.close();
            assertEquals(0, shared.writeBufferBytesUsed());
        }
    }

    /** The stores' memtable bytes together, as their own statistics read them now. */
    private static long memtableSum(List<LsmStore> stores) {
        long sum = 0;
        for (LsmStore s : stores) {
            sum += s.stats().memtableBytes();
        }
        return sum;
    }

    @Test
    void theBudgetCountsWhatTheOpenStoresMemtablesHoldThroughWritesFlushesAndCloses() throws Exception {
        long seed = System.nanoTime();
        java.util.Random random = new java.util.Random(seed);
        try (SharedResources shared = SharedResources.builder().memtableBudgetBytes(256 << 10).build()) {
            StoreConfig config = StoreConfig.builder().memtableBytes(48 << 10).backgroundThreads(1)
                    .sharedResources(shared).build();
            List<LsmStore> open = new ArrayList<>();
            int opened = 0;
            for (int op = 0; op < 1_200; op++) {
                int what = random.nextInt(100);
                if (what < 2 || open.isEmpty()) {
                    open.add(LsmStore.open(dir.resolve("r" + opened++), config));
                } else if (what < 4) {
                    open.remove(random.nextInt(open.size())).close();   // its share is given back
                } else if (what < 7) {
                    open.get(random.nextInt(open.size())).flush();
                } else {
                    LsmStore s = open.get(random.nextInt(open.size()));
                    int k = random.nextInt(2_000);
                    if (what < 15) {
                        s.delete(key(k));
                    } else {
                        s.put(key(k), value(1, k));
                    }
                }
            }
            // Switches and flushes the budget asked for may still run: each tells the budget when done.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (shared.memtableBytesUsed() != memtableSum(open) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(memtableSum(open), shared.memtableBytesUsed(), "seed " + seed);
            assertEquals(open.size(), shared.memtableBudget().members(), "seed " + seed);
            assertTrue(shared.memtableBytesUsed() > 0, "seed " + seed);
            // Flushes give the bytes back without a write after them.
            for (LsmStore s : open) {
                s.flush();
            }
            deadline = System.nanoTime() + 10_000_000_000L;
            while (shared.memtableBytesUsed() != memtableSum(open) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(memtableSum(open), shared.memtableBytesUsed(), "after the flushes, seed " + seed);
            for (LsmStore s : open) {
                s.close();
            }
            assertEquals(0, shared.memtableBytesUsed(), "every closed store gave its share back");
            assertEquals(0, shared.memtableBudget().members());
        }
    }
}
