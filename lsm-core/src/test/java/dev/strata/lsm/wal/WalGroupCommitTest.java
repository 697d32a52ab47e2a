package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Many threads appending at once: nothing lost, nothing doubled, durability per mode. */
class WalGroupCommitTest {
    private static final int THREADS = 8;
    private static final int PER_THREAD = 250;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(WalSyncMode.class)
    void concurrentAppendsAreAllReadBackExactlyOnce(WalSyncMode mode) throws Exception {
        long seed = TestSegments.seed("concurrentAppendsAreAllReadBackExactlyOnce(" + mode + ")");
        // Forces take 300 us, as on a fast SSD, so appenders do overlap with them.
        ForceTrackingStorageIO tracking = new ForceTrackingStorageIO(new FileChannelStorageIO(), 300);
        CountingStorageIO io = new CountingStorageIO(tracking);
        List<Long> violations = Collections.synchronizedList(new ArrayList<>());
        try (WalWriter writer = WalWriter.create(io, dir, 1, mode)) {
            runConcurrently(thread -> {
                Random random = new Random(seed * 31 + thread);
                for (int seq = 0; seq < PER_THREAD; seq++) {
                    long end = writer.append(payload(thread, seq, random));
                    if (mode == WalSyncMode.SYNC && tracking.forcedEnd() < end) {
                        violations.add(end);
                    }
                }
                return null;
            });
        }
        assertTrue(violations.isEmpty(), "SYNC appends returned before a force covered them: " + violations);

        List<WalRecord> records = TestSegments.readAll(io, WalSegments.path(dir, 1));
        assertEquals(THREADS * PER_THREAD, records.size(), "seed " + seed);
        int[] nextSeq = new int[THREADS];
        Set<Long> seen = new HashSet<>();
        for (WalRecord r : records) {
            ByteBuffer b = ByteBuffer.wrap(r.payload());
            int thread = b.getInt();
            int seq = b.getInt();
            assertTrue(seen.add((long) thread << 32 | seq), "duplicate " + thread + "/" + seq);
            // Each thread appends one record at a time, so its records keep their order.
            assertEquals(nextSeq[thread]++, seq, "order of thread " + thread);
        }
        for (int t = 0; t < THREADS; t++) {
            assertEquals(PER_THREAD, nextSeq[t], "records of thread " + t);
        }
        verifyPayloads(records, seed);

        IoStats stats = io.counters().snapshot();
        long forces = stats.forces(IoPurpose.WAL);
        long writes = stats.writes(IoPurpose.WAL);
        System.out.println(mode + ": " + records.size() + " records, " + writes + " writes, " + forces + " forces");
        switch (mode) {
            case SYNC -> {
                assertTrue(forces < records.size(), "group commit grouped nothing: " + forces + " forces");
                // One append and one force per batch.
                assertEquals(writes, forces);
            }
            case ASYNC -> {
                assertEquals(0, forces);
                assertTrue(writes <= records.size());
            }
            case NONE -> {
                assertEquals(0, forces);
                assertEquals(1, writes, "everything fits the NONE buffer, written once at close");
            }
        }
    }

    @Test
    void aFailedWriteFailsEveryWaiterAndEveryLaterAppend() throws Exception {
        Path path = WalSegments.path(dir, 2);
        FaultyStorageIO io = new FaultyStorageIO(
                new ForceTrackingStorageIO(new FileChannelStorageIO(), 300), 20, Integer.MAX_VALUE);
        WalWriter writer = WalWriter.create(io, dir, 2, WalSyncMode.SYNC);
        List<byte[]> acknowledged = Collections.synchronizedList(new ArrayList<>());
        List<StoreException> failures = Collections.synchronizedList(new ArrayList<>());
        runConcurrently(thread -> {
            Random random = new Random(thread);
            for (int seq = 0; seq < PER_THREAD; seq++) {
                byte[] p = payload(thread, seq, random);
                try {
                    writer.append(p);
                    acknowledged.add(p);
                } catch (StoreException e) {
                    failures.add(e);
                    return null;
                }
            }
            return null;
        });
        assertEquals(THREADS, failures.size(), "every thread sees the failure");
        for (StoreException e : failures) {
            assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
            assertTrue(e.getCause() instanceof IOException, String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains(FaultyStorageIO.MESSAGE));
        }
        StoreException later = assertThrows(StoreException.class, () -> writer.append(new byte[1]));
        assertTrue(later.getMessage().contains(path.toString()), later.getMessage());
        assertThrows(StoreException.class, writer::sync);
        assertThrows(StoreException.class, writer::close);
        assertThrows(IllegalStateException.class, () -> writer.append(new byte[1]));

        // Every acknowledged record made it to the file.
        List<WalRecord> records = TestSegments.readAll(new FileChannelStorageIO(), path);
        Set<String> onDisk = new HashSet<>();
        for (WalRecord r : records) {
            onDisk.add(java.util.Arrays.toString(r.payload()));
        }
        assertFalse(acknowledged.isEmpty());
        for (byte[] p : acknowledged) {
            assertTrue(onDisk.contains(java.util.Arrays.toString(p)), "acknowledged record missing");
        }
    }

    @Test
    void aFailedForceFailsSyncAndIsNotRetried() {
        FaultyStorageIO io = new FaultyStorageIO(new FileChannelStorageIO(), Integer.MAX_VALUE, 1);
        WalWriter writer = WalWriter.create(io, dir, 3, WalSyncMode.ASYNC);
        writer.append(new byte[] {1});
        StoreException e = assertThrows(StoreException.class, writer::sync);
        assertTrue(e.getMessage().contains(writer.path().toString()), e.getMessage());
        assertTrue(e.getCause().getMessage().contains("force"));
        // The data was written before the force failed, but the writer stays failed: a
        // second force could succeed without the lost pages ever reaching the disk.
        assertThrows(StoreException.class, () -> writer.append(new byte[] {2}));
        StoreException onClose = assertThrows(StoreException.class, writer::close);
        assertTrue(onClose.getMessage().contains(writer.path().toString()), onClose.getMessage());
    }

    /** Thread id, sequence number, then 0..400 random bytes. */
    private static byte[] payload(int thread, int seq, Random random) {
        byte[] filler = TestSegments.payload(random, random.nextInt(401));
        return ByteBuffer.allocate(8 + filler.length).putInt(thread).putInt(seq).put(filler).array();
    }

    private static void verifyPayloads(List<WalRecord> records, long seed) {
        byte[][][] expected = new byte[THREADS][PER_THREAD][];
        for (int t = 0; t < THREADS; t++) {
            Random random = new Random(seed * 31 + t);
            for (int seq = 0; seq < PER_THREAD; seq++) {
                expected[t][seq] = payload(t, seq, random);
            }
        }
        for (WalRecord r : records) {
            ByteBuffer b = ByteBuffer.wrap(r.payload());
            assertArrayEquals(expected[b.getInt()][b.getInt()], r.payload(), "seed " + seed);
        }
    }

    private interface Body {
        Void run(int thread) throws Exception;
    }

    /** Runs {@code body} on {@link #THREADS} threads released together; rethrows failures. */
    private static void runConcurrently(Body body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<Void>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Callable<Void> task = () -> {
                    start.await();
                    return body.run(thread);
                };
                futures.add(pool.submit(task));
            }
            for (Future<Void> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
