package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writers apply batches that set every key of a group to one generation; readers check,
 * through snapshots and cursors, that they never see a group half-written, while flushes
 * and merges run underneath. At the end the store equals the writers' combined oracle.
 */
class ConcurrentStoreTest {
    private static final int WRITERS = 4;
    private static final int READERS = 3;
    private static final int GROUPS_PER_WRITER = 20;
    private static final int GROUP_SIZE = 8;
    private static final int BATCHES = 1500;

    @TempDir
    Path dir;

    private static byte[] key(int writer, int group, int member) {
        return String.format("w%d-g%03d-m%d", writer, group, member).getBytes();
    }

    private static byte[] value(int writer, long generation, int member) {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 + 40 + member);
        b.putLong(generation).putInt(writer);
        return b.array();
    }

    private static long generation(byte[] v) {
        return ByteBuffer.wrap(v).getLong();
    }

    @Test
    void readersNeverSeeTornBatchesAndFinalStateMatches() throws Exception {
        StoreConfig config = StoreConfig.builder()
                .memtableBytes(32 * 1024)
                .backgroundThreads(2)
                .mergePolicy("size-tiered", Map.of("fanout", "2"))
                .build();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong groupChecks = new AtomicLong();
        List<TreeMap<String, byte[]>> oracles = new ArrayList<>();
        try (LsmStore store = LsmStore.open(dir, config)) {
            CountDownLatch writersDone = new CountDownLatch(WRITERS);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                TreeMap<String, byte[]> oracle = new TreeMap<>();
                oracles.add(oracle);
                threads.add(new Thread(() -> {
                    try {
                        Random rnd = new Random(writer);
                        for (long gen = 1; gen <= BATCHES; gen++) {
                            int group = rnd.nextInt(GROUPS_PER_WRITER);
                            WriteBatch b = new WriteBatch();
                            boolean delete = rnd.nextInt(10) == 0;
                            for (int m = 0; m < GROUP_SIZE; m++) {
                                byte[] k = key(writer, group, m);
                                if (delete) {
                                    b.delete(k);
                                    oracle.remove(new String(k));
                                } else {
                                    byte[] v = value(writer, gen, m);
                                    b.put(k, v);
                                    oracle.put(new String(k), v);
                                }
                            }
                            store.write(b);
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                    } finally {
                        writersDone.countDown();
                    }
                }, "writer-" + w));
            }
            for (int r = 0; r < READERS; r++) {
                int reader = r;
                threads.add(new Thread(() -> {
                    Random rnd = new Random(100 + reader);
                    try {
                        while (writing.get()) {
                            int writer = rnd.nextInt(WRITERS);
                            int group = rnd.nextInt(GROUPS_PER_WRITER);
                            if (rnd.nextBoolean()) {
                                try (Snapshot s = store.snapshot()) {
                                    Long gen = null;
                                    int present = 0;
                                    for (int m = 0; m < GROUP_SIZE; m++) {
                                        byte[] v = s.get(key(writer, group, m));
                                        if (v != null) {
                                            present++;
                                            long g = generation(v);
                                            assertTrue(gen == null || gen == g, "torn batch seen by snapshot get");
                                            gen = g;
                                        }
                                    }
                                    assertTrue(present == 0 || present == GROUP_SIZE, "partial group: " + present);
                                }
                            } else if (rnd.nextBoolean()) {
                                // Backwards, with a change of direction half-way: the memtable's
                                // predecessor searches run while the writers insert.
                                byte[] from = key(writer, group, 0);
                                byte[] to = key(writer, group + 1, 0);
                                try (Cursor c = store.scan(from, to)) {
                                    Long gen = null;
                                    int present = 0;
                                    byte[] after = null;
                                    for (boolean on = c.seekToLast(); on; on = c.prev()) {
                                        present++;
                                        assertTrue(after == null || Arrays.compareUnsigned(c.key(), after) < 0,
                                                "backward scan out of order");
                                        if (present == GROUP_SIZE / 2) {
                                            byte[] here = c.key();
                                            assertTrue(c.next(), "next after prev");
                                            assertTrue(c.prev(), "prev after next");
                                            assertArrayEquals(here, c.key(), "a change of direction and back");
                                        }
                                        long g = generation(c.value());
                                        assertTrue(gen == null || gen == g, "torn batch seen by backward scan");
                                        gen = g;
                                        after = c.key();
                                    }
                                    assertTrue(present == 0 || present == GROUP_SIZE,
                                            "partial group in backward scan: " + present);
                                }
                            } else {
                                byte[] from = key(writer, group, 0);
                                byte[] to = key(writer, group + 1, 0);
                                try (Cursor c = store.scan(from, to)) {
                                    Long gen = null;
                                    int present = 0;
                                    while (c.next()) {
                                        present++;
                                        long g = generation(c.value());
                                        assertTrue(gen == null || gen == g, "torn batch seen by scan");
                                        gen = g;
                                    }
                                    assertTrue(present == 0 || present == GROUP_SIZE, "partial group in scan: " + present);
                                }
                            }
                            groupChecks.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                    }
                }, "reader-" + r));
            }
            threads.forEach(Thread::start);
            writersDone.await();
            writing.set(false);
            for (Thread t : threads) {
                t.join();
            }
            if (!errors.isEmpty()) {
                Throwable first = errors.peek();
                throw new AssertionError(errors.size() + " thread(s) failed; first: " + first, first);
            }
            store.awaitMerges();
            StoreStats stats = store.stats();
            System.out.println("concurrent: " + stats + ", group checks " + groupChecks.get());
            assertTrue(stats.flushCount() > 0 && stats.mergeCount() > 0, "flushes and merges ran: " + stats);
            assertTrue(groupChecks.get() > 100, "readers ran");

            TreeMap<String, byte[]> all = new TreeMap<>();
            oracles.forEach(all::putAll);
            try (Cursor c = store.scan(null, null)) {
                for (Map.Entry<String, byte[]> e : all.entrySet()) {
                    assertTrue(c.next(), "missing " + e.getKey());
                    assertEquals(e.getKey(), new String(c.key()));
                    assertArrayEquals(e.getValue(), c.value(), e.getKey());
                }
                assertFalse(c.next(), "extra keys");
            }
            for (Map.Entry<String, byte[]> e : all.entrySet()) {
                assertTrue(Arrays.equals(e.getValue(), store.get(e.getKey().getBytes())), e.getKey());
            }
        }
    }
}
