package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A column family dropped while its background work runs: a merge held at the start of its
 * write ({@link Engine#backgroundHook}), an obsolete-file sweep of its directory held just
 * before it deletes the obsolete tables, or a flush held before it writes. The drop must
 * stop the family's flushes and merges, wait for the running ones and for the running
 * sweep, and only then delete the directory; nothing of the family may run after it.
 * Before, the drop deleted the directory while a sweep deleted in it
 * ({@code dropColumnFamily} failed with {@code NoSuchFileException} from the directory walk,
 * {@code ModelBasedStoreSlowTest.familyHistoryMatchesOracle[3]}), and a merge or flush retry
 * could start in the dropped family afterwards.
 */
class DropFamilyRaceTest {
    private static final long WAIT_SECONDS = 30;

    @TempDir
    Path tmp;

    private static StoreConfig config() {
        return StoreConfig.builder().walMode(WalSyncMode.ASYNC).memtableBytes(64 << 10).backgroundThreads(2)
                .mergePolicy("no-merge").build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void writeTable(LsmStore store, ColumnFamily fam, int round) {
        for (int i = 0; i < 200; i++) {
            store.put(fam, b(TestKeys.padded("k", i, 5)), b("round-" + round + "-" + "v".repeat(60)));
        }
        store.flushColumnFamily(fam);
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
            fail("timed out waiting until " + what);
        }
    }

    private static Thread start(String name, AtomicReference<Throwable> failure, ThrowingRunnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, name);
        t.start();
        return t;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aDropWaitsForTheRunningMergeAndSweepThenDeletesTheDirectoryAndNothingRunsAfter() throws Exception {
        Path dir = tmp.resolve("store");
        CountDownLatch mergeHeld = new CountDownLatch(1);
        CountDownLatch releaseMerge = new CountDownLatch(1);
        CountDownLatch sweepHeld = new CountDownLatch(1);
        CountDownLatch releaseSweep = new CountDownLatch(1);
        CountDownLatch dropWaitsForWork = new CountDownLatch(1);
        CountDownLatch dropWaitsForSweep = new CountDownLatch(1);
        AtomicBoolean holdMerge = new AtomicBoolean();
        AtomicBoolean holdSweep = new AtomicBoolean();
        AtomicBoolean dropReturned = new AtomicBoolean();
        List<String> afterDrop = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> dropFailure = new AtomicReference<>();
        AtomicReference<Throwable> compactFailure = new AtomicReference<>();
        Path familyDir;
        try (LsmStore store = LsmStore.open(dir, config())) {
            Engine engine = TestAccess.engine(store);
            ColumnFamily fam = store.createColumnFamily("a", FamilyOptions.defaults());
            familyDir = dir.resolve("families").resolve(Integer.toString(fam.id()));
            engine.backgroundHook(fam.id(), step -> {
                if (dropReturned.get()) {
                    afterDrop.add(step);
                }
                try {
                    if (step.equals("merge started") && holdMerge.compareAndSet(true, false)) {
                        mergeHeld.countDown();
                        await(releaseMerge, "the merge is released");
                    } else if (step.startsWith("sweep deletes") && holdSweep.compareAndSet(true, false)) {
                        sweepHeld.countDown();
                        await(releaseSweep, "the sweep is released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            engine.opsHook(step -> {
                if (step.equals("drop waits for background work")) {
                    dropWaitsForWork.countDown();
                } else if (step.equals("drop waits for obsolete-file sweep")) {
                    dropWaitsForSweep.countDown();
                }
            });
            writeTable(store, fam, 1);
            writeTable(store, fam, 2);
            // A cursor pins the two tables; the merge below makes them obsolete but not deletable.
            Cursor pin = store.scan(fam, null, null);
            store.compactRange(fam, null, null);
            writeTable(store, fam, 3);

            // A merge of the family in flight, held before it writes.
            holdMerge.set(true);
            Thread compactor = start("compactor", compactFailure, () -> store.compactRange(fam, null, null));
            await(mergeHeld, "the second merge runs");
            // A sweep of the family's directory in flight, held with the two obsolete tables listed.
            holdSweep.set(true);
            pin.close();
            await(sweepHeld, "a sweep is about to delete the obsolete tables");

            Thread dropper = start("dropper", dropFailure, () -> {
                store.dropColumnFamily(fam);
                dropReturned.set(true);
            });
            await(dropWaitsForWork, "the drop waits for the running merge");
            assertTrue(Files.isDirectory(familyDir), "the directory stays while the merge runs");
            releaseMerge.countDown();
            await(dropWaitsForSweep, "the drop waits for the running sweep");
            assertTrue(Files.isDirectory(familyDir), "the directory stays while the sweep runs");
            releaseSweep.countDown();
            dropper.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertFalse(dropper.isAlive(), "the drop did not return");
            assertNull(dropFailure.get(), () -> "the drop failed: " + dropFailure.get());
            assertFalse(Files.exists(familyDir), "the dropped family's directory is deleted");
            compactor.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertFalse(compactor.isAlive(), "compactRange did not return");
            Throwable c = compactFailure.get();
            assertTrue(c == null || c instanceof IllegalArgumentException && c.getMessage().contains("\"a\" was dropped"),
                    () -> "compactRange of the dropping family: " + c);

            store.put(b("x"), b("y"));
            store.flush();
            store.compactRange(null, null);
        }
        // Closing ran every queued job of the store: none of them touched the dropped family.
        assertEquals(List.of(), afterDrop, "background work of the family after its drop returned");
        assertFalse(Files.exists(familyDir), "nothing recreated the dropped family's directory");
        try (LsmStore reopened = LsmStore.open(dir, config())) {
            assertEquals(List.of("default"), reopened.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertEquals("y", new String(reopened.get(b("x")), StandardCharsets.US_ASCII));
        }
        assertFalse(Files.exists(familyDir));
    }

    @Test
    void aDropWaitsForTheRunningFlushAndNoFlushOfTheFamilyStartsAfter() throws Exception {
        Path dir = tmp.resolve("store");
        CountDownLatch flushHeld = new CountDownLatch(1);
        CountDownLatch releaseFlush = new CountDownLatch(1);
        CountDownLatch dropWaitsForWork = new CountDownLatch(1);
        AtomicBoolean holdFlush = new AtomicBoolean();
        AtomicBoolean dropReturned = new AtomicBoolean();
        List<String> afterDrop = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> dropFailure = new AtomicReference<>();
        AtomicReference<Throwable> flushFailure = new AtomicReference<>();
        Path familyDir;
        try (LsmStore store = LsmStore.open(dir, config())) {
            Engine engine = TestAccess.engine(store);
            ColumnFamily fam = store.createColumnFamily("a", FamilyOptions.defaults());
            familyDir = dir.resolve("families").resolve(Integer.toString(fam.id()));
            writeTable(store, fam, 1);
            engine.backgroundHook(fam.id(), step -> {
                if (dropReturned.get()) {
                    afterDrop.add(step);
                }
                if (step.equals("flush started") && holdFlush.compareAndSet(true, false)) {
                    flushHeld.countDown();
                    try {
                        await(releaseFlush, "the flush is released");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            engine.opsHook(step -> {
                if (step.equals("drop waits for background work")) {
                    dropWaitsForWork.countDown();
                }
            });
            for (int i = 0; i < 100; i++) {
                store.put(fam, b(TestKeys.padded("m", i, 5)), b("unflushed"));
            }
            holdFlush.set(true);
            Thread flusher = start("flusher", flushFailure, () -> store.flushColumnFamily(fam));
            await(flushHeld, "the family's flush runs");
            // More writes into the new active memtable (less than it holds): discarded by the drop, never flushed.
            for (int i = 0; i < 100; i++) {
                store.put(fam, b(TestKeys.padded("n", i, 5)), b("v".repeat(100)));
            }
            Thread dropper = start("dropper", dropFailure, () -> {
                store.dropColumnFamily(fam);
                dropReturned.set(true);
            });
            await(dropWaitsForWork, "the drop waits for the running flush");
            assertTrue(Files.isDirectory(familyDir), "the directory stays while the flush runs");
            releaseFlush.countDown();
            dropper.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertFalse(dropper.isAlive(), "the drop did not return");
            assertNull(dropFailure.get(), () -> "the drop failed: " + dropFailure.get());
            assertFalse(Files.exists(familyDir), "the dropped family's directory is deleted");
            flusher.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertFalse(flusher.isAlive(), "flushColumnFamily did not return");
            Throwable f = flushFailure.get();
            assertTrue(f == null || f instanceof IllegalArgumentException, () -> "flush of the dropping family: " + f);
            store.put(b("x"), b("y"));
            store.flush();
        }
        assertEquals(List.of(), afterDrop, "background work of the family after its drop returned");
        assertFalse(Files.exists(familyDir), "nothing recreated the dropped family's directory");
        try (LsmStore reopened = LsmStore.open(dir, config())) {
            assertEquals(List.of("default"), reopened.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertEquals("y", new String(reopened.get(b("x")), StandardCharsets.US_ASCII));
        }
    }
}
