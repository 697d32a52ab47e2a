package dev.strata.lsm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Thread#interrupt()} closes a {@link java.nio.channels.FileChannel} that the
 * interrupted thread is using; the store's files are shared by every thread, so an
 * interrupt of one reader or writer must not break reads or writes of the others (nor,
 * as documented, of the interrupted thread itself, which keeps its interrupt status).
 */
class InterruptTest {
    private static final int KEYS = 20_000;
    /** The reader test interrupts at least this often, and until the victim has done the two below. */
    private static final int MIN_INTERRUPTS = 10_000;
    private static final int MIN_VICTIM_GETS = 2_000;
    private static final int MIN_INTERRUPTS_KEPT = 500;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 8).getBytes();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[100];
        Arrays.fill(v, (byte) i);
        return v;
    }

    @Test
    void interruptingOneReaderBreaksNoReads() throws Exception {
        StoreConfig config = StoreConfig.builder()
                .memtableBytes(256 * 1024)
                .blockCacheBytes(0)
                .mergePolicy("size-tiered", Map.of())
                .build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            store.awaitMerges();

            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            AtomicInteger interruptsKept = new AtomicInteger();
            AtomicInteger victimGets = new AtomicInteger();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                readers.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        int k = random.nextInt(KEYS);
                        try {
                            assertArrayEquals(value(k), store.get(key(k)), "key " + k);
                        } catch (Throwable e) {
                            errors.add(e);
                            return;
                        }
                    }
                }, "reader-" + t));
            }
            Thread victim = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int k = random.nextInt(KEYS);
                    try {
                        assertArrayEquals(value(k), store.get(key(k)), "interrupted reader, key " + k);
                        victimGets.incrementAndGet();
                    } catch (Throwable e) {
                        errors.add(e);
                        return;
                    }
                    if (Thread.interrupted()) {
                        interruptsKept.incrementAndGet();
                    }
                }
            }, "interrupted-reader");
            readers.forEach(Thread::start);
            victim.start();
            // Interrupts until the victim has read on through enough of them (counted, not timed:
            // on a loaded machine the victim may run little in any fixed time); the deadline only
            // ends a run whose victim never gets to run at all.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int interrupts = 0;
            while (errors.isEmpty() && System.nanoTime() < deadline && (interrupts < MIN_INTERRUPTS
                    || victimGets.get() < MIN_VICTIM_GETS || interruptsKept.get() < MIN_INTERRUPTS_KEPT)) {
                victim.interrupt();
                interrupts++;
                LockSupport.parkNanos(20_000);
            }
            stop.set(true);
            victim.join();
            for (Thread t : readers) {
                t.join();
            }
            if (!errors.isEmpty()) {
                AssertionError failure = new AssertionError(errors.size() + " reader(s) failed after " + interrupts
                        + " interrupts; first: " + errors.peek(), errors.peek());
                throw failure;
            }
            assertTrue(victimGets.get() >= MIN_VICTIM_GETS && interruptsKept.get() >= MIN_INTERRUPTS_KEPT,
                    "the interrupted reader read on and kept its interrupt status: " + victimGets + " gets, "
                            + interruptsKept + " interrupts seen of " + interrupts);
            // And afterwards every key still reads, from this thread.
            for (int i = 0; i < KEYS; i += 7) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"SYNC", "ASYNC"})
    void interruptingWritersFailsNoWriteAndLosesNothing(WalSyncMode mode) throws Exception {
        StoreConfig config = StoreConfig.builder()
                .memtableBytes(128 * 1024)
                .walMode(mode)
                .mergePolicy("size-tiered", Map.of())
                .build();
        int writersCount = 3;
        // 500 / 2,000 in the fast lane; 1,500 / 6,000 in the slow lane (InterruptSlowTest).
        int perWriter = mode == WalSyncMode.SYNC ? TestScale.scaled(500) : TestScale.scaled(2_000);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();
        try (LsmStore store = LsmStore.open(dir, config)) {
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < writersCount; t++) {
                int first = t * perWriter;
                writers.add(new Thread(() -> {
                    for (int i = first; i < first + perWriter; i++) {
                        try {
                            store.put(key(i), value(i));
                            acknowledged.add(i);
                        } catch (StoreException e) {
                            // A put that had to wait for room may give up when its own thread
                            // is interrupted; it says so and was not applied. Nothing else. It
                            // is tried again, so every put is acknowledged in the end however
                            // often the waits were interrupted (how often depends on timing).
                            if (!String.valueOf(e.getMessage()).startsWith("interrupted while waiting")) {
                                errors.add(e);
                                return;
                            }
                            refused.incrementAndGet();
                            i--;
                        } catch (Throwable e) {
                            errors.add(e);
                            return;
                        }
                        Thread.interrupted();
                    }
                }, "writer-" + t));
            }
            writers.forEach(Thread::start);
            int interrupts = 0;
            while (writers.stream().anyMatch(Thread::isAlive)) {
                for (Thread w : writers) {
                    w.interrupt();
                    interrupts++;
                }
                LockSupport.parkNanos(10_000);
            }
            for (Thread t : writers) {
                t.join();
            }
            if (!errors.isEmpty()) {
                throw new AssertionError(errors.size() + " writer(s) failed after " + interrupts
                        + " interrupts; first: " + errors.peek(), errors.peek());
            }
            store.put(key(-1), value(1));
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            int missing = 0;
            assertEquals(writersCount * perWriter, acknowledged.size(),
                    acknowledged.size() + " puts acknowledged, " + refused + " refused as interrupted and tried again");
            for (int i : acknowledged) {
                byte[] v = store.get(key(i));
                if (v == null || !Arrays.equals(value(i), v)) {
                    missing++;
                }
            }
            assertEquals(0, missing, "acknowledged puts missing after reopen");
        }
    }
}
