package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.wal.WalSegments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checkpoint of a store with column families while a flush deletes the WAL segments no
 * family needs any more. The deletion runs outside the mutex: it computes the oldest segment
 * still needed, then deletes the segments below it one by one. A checkpoint that took the
 * mutex in between used to list every segment from the lowest log number of any family on
 * (an idle family's log number can be far below what retention keeps), found the segments
 * the deleter had not reached yet, and failed to link them once it had
 * ({@code NoSuchFileException ... .wal}, seen in CheckpointConformanceTest at multiplier 3). Here
 * the deleter is held in its first WAL deletion by the storage, and let go while the
 * checkpoint, holding the mutex, has listed the segments it will link. The checkpoint must
 * take only segments retention keeps, and open with every acknowledged write.
 */
class CheckpointWalRetentionRaceTest {
    private static final int KEYS = 200;

    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Holds the first WAL segment deletion after {@link #arm} until {@link #release}. */
    private static final class HeldWalDeletion extends ForwardingStorageIO {
        private volatile boolean armed;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        final CountDownLatch deleted = new CountDownLatch(1);
        final AtomicReference<Path> segment = new AtomicReference<>();

        HeldWalDeletion() {
            super(new FileChannelStorageIO());
        }

        void arm() {
            armed = true;
        }

        void release() {
            released.countDown();
        }

        @Override
        public void delete(Path path) throws IOException {
            boolean hold = armed && WalSegments.parseNumber(path).isPresent() && segment.compareAndSet(null, path);
            if (!hold) {
                super.delete(path);
                return;
            }
            held.countDown();
            try {
                if (!released.await(30, TimeUnit.SECONDS)) {
                    throw new IOException("test: the held deletion of " + path + " was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            super.delete(path);
            deleted.countDown();
        }
    }

    @Test
    void aCheckpointLinksOnlyTheSegmentsRetentionKeepsWhileAFlushDeletesTheOthers() throws Exception {
        Path dir = tmp.resolve("store");
        Path checkpoint = tmp.resolve("checkpoint");
        HeldWalDeletion io = new HeldWalDeletion();
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.ASYNC).memtableBytes(1 << 20)
                .mergePolicy("no-merge").storageIO(io).build();
        TreeMap<String, String> modelDefault = new TreeMap<>();
        TreeMap<String, String> modelB = new TreeMap<>();
        AtomicReference<Throwable> flushFailure = new AtomicReference<>();
        try (LsmStore store = LsmStore.open(dir, config)) {
            ColumnFamily fam = store.createColumnFamily("b", FamilyOptions.defaults());
            for (int i = 0; i < KEYS; i++) {
                String k = TestKeys.padded("k", i, 5);
                store.put(b(k), b("d" + i));
                modelDefault.put(k, "d" + i);
            }
            // The default family goes idle at an old log number.
            store.flushColumnFamily(store.defaultColumnFamily());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < KEYS; i++) {
                    String k = TestKeys.padded("k", i, 5);
                    store.put(fam, b(k), b("b" + round + "-" + i));
                    modelB.put(k, "b" + round + "-" + i);
                }
                if (round < 2) {
                    store.flushColumnFamily(fam);
                }
            }
            // Family b's last flush deletes the segments of its writes, held at the first one.
            io.arm();
            Thread flusher = new Thread(() -> {
                try {
                    store.flushColumnFamily(fam);
                } catch (Throwable t) {
                    flushFailure.set(t);
                }
            }, "flusher");
            flusher.start();
            assertTrue(io.held.await(30, TimeUnit.SECONDS), "the flush never deleted a WAL segment");
            Path heldSegment = io.segment.get();
            assertTrue(Files.exists(heldSegment), "the held segment is still on disk");

            List<String> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
            TestAccess.engine(store).opsHook(step -> {
                steps.add(step);
                if (step.equals("checkpoint listed wal")) {
                    // The deleter goes on while the checkpoint holds the mutex, as it may.
                    io.release();
                    try {
                        assertTrue(io.deleted.await(30, TimeUnit.SECONDS), "the held deletion did not finish");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            store.checkpoint(checkpoint);
            TestAccess.engine(store).opsHook(null);
            io.release();
            flusher.join(30_000);
            assertFalse(flusher.isAlive(), "the flush did not finish");
            assertNull(flushFailure.get(), () -> "the flush failed: " + flushFailure.get());
            assertTrue(steps.contains("checkpoint listed wal"), "steps " + steps);
            assertFalse(Files.exists(heldSegment), "the flush deleted the segment it was held at");
            assertFalse(Files.exists(checkpoint.resolve(heldSegment.getFileName())),
                    "the checkpoint holds segment " + heldSegment.getFileName() + ", which no family needs");
        }
        try (LsmStore copy = LsmStore.open(checkpoint, StoreConfig.builder().walMode(WalSyncMode.ASYNC)
                .memtableBytes(1 << 20).mergePolicy("no-merge").build())) {
            ColumnFamily fam = copy.columnFamily("b");
            assertNotNull(fam);
            assertEquals(modelDefault, dump(copy, copy.defaultColumnFamily()));
            assertEquals(modelB, dump(copy, fam));
        }
    }

    private static TreeMap<String, String> dump(LsmStore store, ColumnFamily family) {
        TreeMap<String, String> out = new TreeMap<>();
        for (int i = 0; i < KEYS; i++) {
            String k = TestKeys.padded("k", i, 5);
            byte[] v = store.get(family, b(k));
            if (v != null) {
                out.put(k, new String(v, StandardCharsets.US_ASCII));
            }
        }
        return out;
    }
}
