package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.fault.WalFaultIO;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An {@link Error} (an {@code OutOfMemoryError} of a huge put, say) thrown inside a write
 * group must not wedge the store: the write and the rest of its group fail with a
 * {@link StoreException}, the next writer gets its turn, and {@code close()} returns. A
 * failure before the memtable was touched leaves the store writable; a failure while
 * inserting into the memtable, after the WAL took the record, leaves WAL and memtable
 * disagreeing, so the store refuses writes until reopened and the write then comes back
 * whole or not at all.
 */
class WriteErrorTest {
    /**
     * Far beyond what any call here needs; reaching it means a hang. 30 s was reached once (32.4 s)
     * by a healthy run on a machine at load 35, so the limit leaves room for a starved CI box.
     */
    private static final long HANG_SECONDS = 120;

    @TempDir
    Path dir;

    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "write-error-test");
        t.setDaemon(true);
        return t;
    });

    @org.junit.jupiter.api.AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    /** Runs {@code call} on another thread; a call that does not return fails the test instead of hanging it. */
    private <T> T within(String what, Callable<T> call) throws Exception {
        Future<T> f = pool.submit(call);
        try {
            return f.get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            fail(what + " did not return: the store is wedged");
            throw e;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            // Wrapped: JUnit aborts the whole run on an OutOfMemoryError, even an injected one.
            throw new AssertionError(what + " threw " + e.getCause(), e.getCause());
        }
    }

    private void within(String what, Runnable call) throws Exception {
        within(what, () -> {
            call.run();
            return null;
        });
    }

    private static byte[] key(String prefix, int i) {
        return TestKeys.padded(prefix + "-", i, 6).getBytes();
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes();
    }

    private static StoreConfig config(WalSyncMode mode, WalFaultIO io) {
        StoreConfig.Builder b = StoreConfig.builder().memtableBytes(64 * 1024).walMode(mode).mergePolicy("no-merge");
        if (io != null) {
            b.storageIO(io);
        }
        return b.build();
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"SYNC", "ASYNC"})
    void errorInTheWalAppendFailsTheWriteAndTheStoreKeepsWorking(WalSyncMode mode) throws Exception {
        WalFaultIO io = new WalFaultIO(); // OutOfMemoryError from WAL appends, as a 60 MiB put can in a small heap
        LsmStore store = LsmStore.open(dir, config(mode, io));
        for (int i = 0; i < 100; i++) {
            store.put(key("a", i), value(i));
        }
        io.armAppendErrors(1);
        StoreException e = assertThrows(StoreException.class,
                () -> within("a put whose WAL append threw an Error", () -> store.put(key("x", 0), value(0))));
        assertInstanceOf(OutOfMemoryError.class, rootCause(e), e.toString());
        assertEquals(1, io.thrown());
        assertNull(store.get(key("x", 0)));
        within("puts after the failed one", () -> {
            for (int i = 100; i < 200; i++) {
                store.put(key("a", i), value(i));
            }
        });
        for (int i = 0; i < 200; i++) {
            assertArrayEquals(value(i), store.get(key("a", i)));
        }
        within("close() after a failed write", store::close);
        try (LsmStore reopened = LsmStore.open(dir, config(mode, null))) {
            for (int i = 0; i < 200; i++) {
                assertArrayEquals(value(i), reopened.get(key("a", i)), "put " + i);
            }
            assertNull(reopened.get(key("x", 0)));
        }
    }

    @Test
    void errorInTheWalAppendFailsTheWholeGroupAndWakesEveryMember() throws Exception {
        WalFaultIO io = new WalFaultIO();
        LsmStore store = LsmStore.open(dir, config(WalSyncMode.SYNC, io));
        int threads = 4;
        int puts = 400;
        AtomicLong failed = new AtomicLong();
        List<List<Integer>> acked = new ArrayList<>();
        List<Future<?>> futures = new ArrayList<>();
        AtomicBoolean go = new AtomicBoolean();
        for (int t = 0; t < threads; t++) {
            List<Integer> mine = new ArrayList<>();
            acked.add(mine);
            String prefix = "t" + t;
            futures.add(pool.submit(() -> {
                while (!go.get()) {
                    Thread.onSpinWait();
                }
                for (int i = 0; i < puts; i++) {
                    try {
                        store.put(key(prefix, i), value(i));
                        mine.add(i);
                    } catch (StoreException e) {
                        assertInstanceOf(OutOfMemoryError.class, rootCause(e), e.toString());
                        failed.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        io.armAppendErrors(5);
        go.set(true);
        for (Future<?> f : futures) {
            try {
                f.get(HANG_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("writers hung after an Error in a write group");
            }
        }
        assertEquals(5, io.thrown());
        assertTrue(failed.get() >= 5, "failed puts: " + failed.get());
        within("close() after failed write groups", store::close);
        try (LsmStore reopened = LsmStore.open(dir, config(WalSyncMode.SYNC, null))) {
            for (int t = 0; t < threads; t++) {
                for (int i : acked.get(t)) {
                    assertArrayEquals(value(i), reopened.get(key("t" + t, i)), "thread " + t + " put " + i);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"SYNC", "ASYNC", "NONE"})
    void errorWhileFillingTheMemtableRefusesWritesUntilReopenedAndTheBatchComesBackWhole(WalSyncMode mode)
            throws Exception {
        LsmStore store = LsmStore.open(dir, config(mode, null));
        for (int i = 0; i < 100; i++) {
            store.put(key("a", i), value(i));
        }
        AtomicInteger inserts = new AtomicInteger();
        dev.strata.lsm.TestAccess.engine(store).memtableInsertHook(() -> {
            // The second operation of the next write fails, after the first is in the memtable.
            if (inserts.incrementAndGet() == 2) {
                throw new OutOfMemoryError("injected: Java heap space");
            }
        });
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < 3; i++) {
            batch.put(key("b", i), value(i));
        }
        batch.put(key("a", 0), "overwritten".getBytes());
        StoreException e = assertThrows(StoreException.class,
                () -> within("a write whose memtable insert threw an Error", () -> store.write(batch)));
        assertInstanceOf(OutOfMemoryError.class, rootCause(e), e.toString());
        dev.strata.lsm.TestAccess.engine(store).memtableInsertHook(null);
        // Nothing of the failed batch is visible, not even the part that reached the memtable.
        for (int i = 0; i < 3; i++) {
            assertNull(store.get(key("b", i)));
        }
        assertArrayEquals(value(0), store.get(key("a", 0)));
        StoreException refused = assertThrows(StoreException.class,
                () -> within("a put after the failed write", () -> store.put(key("c", 0), value(0))));
        assertTrue(refused.getMessage().contains("reopen"), refused.getMessage());
        assertNull(store.get(key("c", 0)));
        // A flush must not make the half-inserted batch visible either.
        within("flush() after the failed write", store::flush);
        for (int i = 0; i < 3; i++) {
            assertNull(store.get(key("b", i)));
        }
        within("close() after the failed write", store::close);
        try (LsmStore reopened = LsmStore.open(dir, config(mode, null))) {
            for (int i = 1; i < 100; i++) {
                assertArrayEquals(value(i), reopened.get(key("a", i)), "put " + i);
            }
            // The write was not acknowledged: it may come back from the WAL, but only whole.
            boolean applied = reopened.get(key("b", 0)) != null;
            for (int i = 0; i < 3; i++) {
                assertEquals(applied, reopened.get(key("b", i)) != null, "op " + i + " of the failed batch");
            }
            assertArrayEquals(applied ? "overwritten".getBytes() : value(0), reopened.get(key("a", 0)));
            assertNull(reopened.get(key("c", 0)));
            reopened.put(key("c", 0), value(0));
            assertArrayEquals(value(0), reopened.get(key("c", 0)));
        }
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
