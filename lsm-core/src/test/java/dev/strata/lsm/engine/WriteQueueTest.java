package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Callers that take a turn in the write queue without writing — {@code flush()} and
 * {@code close()} — while other threads keep writing: each must get its turn and return,
 * and no write group may swallow it.
 */
class WriteQueueTest {
    private static final int WRITERS = 4;
    /** Far beyond what any of these calls needs; reaching it means a hang. */
    private static final long HANG_SECONDS = 60;
    private static final int FLUSHES = 20;
    private static final StoreConfig CONFIG =
            StoreConfig.builder().memtableBytes(64 * 1024).mergePolicy("no-merge").build();

    @TempDir
    Path dir;

    private final ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1, r -> {
        Thread t = new Thread(r, "write-queue-test");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private static byte[] key(int writer, long i) {
        return TestKeys.padded("w" + writer + "-", i, 8).getBytes();
    }

    /** Starts writers that put until {@code stop}; each counts its acknowledged puts. */
    private static List<Future<?>> startWriters(ExecutorService pool, LsmStore store, AtomicBoolean stop,
                                                AtomicLong[] acked) {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < WRITERS; t++) {
            int writer = t;
            acked[t] = new AtomicLong();
            futures.add(pool.submit(() -> {
                long i = 0;
                while (!stop.get()) {
                    try {
                        store.put(key(writer, i), new byte[32]);
                    } catch (StoreClosedException e) {
                        return null;
                    }
                    acked[writer].set(++i);
                }
                return null;
            }));
        }
        return futures;
    }

    @Test
    void flushWhileOthersWriteReturns() throws Exception {
        LsmStore store = LsmStore.open(dir, CONFIG);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong[] acked = new AtomicLong[WRITERS];
        try {
            List<Future<?>> writers = startWriters(pool, store, stop, acked);
            Future<Integer> flusher = pool.submit(() -> {
                int flushes = 0;
                for (; flushes < FLUSHES; flushes++) {
                    store.flush();
                }
                return flushes;
            });
            try {
                assertEquals(FLUSHES, flusher.get(HANG_SECONDS, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                fail("flush() did not return while " + WRITERS + " threads were writing");
            }
            stop.set(true);
            for (Future<?> f : writers) {
                f.get(HANG_SECONDS, TimeUnit.SECONDS);
            }
            store.close();
        } finally {
            stop.set(true);
        }
        try (LsmStore reopened = LsmStore.open(dir, CONFIG)) {
            for (int t = 0; t < WRITERS; t++) {
                assertTrue(acked[t].get() > 0, "writer " + t + " made no progress");
                for (long i = 0; i < acked[t].get(); i++) {
                    assertArrayEquals(new byte[32], reopened.get(key(t, i)), "writer " + t + " put " + i);
                }
            }
        }
    }

    @Test
    void closeWhileOthersWriteReturnsAndLaterWritesAreRefused() throws Exception {
        LsmStore store = LsmStore.open(dir, CONFIG);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong[] acked = new AtomicLong[WRITERS];
        try {
            List<Future<?>> writers = startWriters(pool, store, stop, acked);
            while (acked[0].get() < 1000) {
                Thread.sleep(1);
            }
            Future<?> closer = pool.submit(store::close);
            try {
                closer.get(HANG_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("close() did not return while " + WRITERS + " threads were writing");
            }
            // The writers were not stopped: each ends on StoreClosedException.
            for (Future<?> f : writers) {
                f.get(HANG_SECONDS, TimeUnit.SECONDS);
            }
            assertThrows(StoreClosedException.class, () -> store.put(key(0, 0), new byte[1]));
        } finally {
            stop.set(true);
        }
        try (LsmStore reopened = LsmStore.open(dir, CONFIG)) {
            for (int t = 0; t < WRITERS; t++) {
                for (long i = 0; i < acked[t].get(); i++) {
                    assertArrayEquals(new byte[32], reopened.get(key(t, i)), "writer " + t + " put " + i);
                }
            }
        }
    }
}
