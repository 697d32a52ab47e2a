package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
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
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A column family dropped while a checkpoint runs, after the checkpoint pinned the families
 * and before it linked their tables (held there by {@link Engine#opsHook}). The checkpoint
 * took the family set with the versions, so the dropped family is in it, and the drop must
 * not delete the family's tables under it: before, the checkpoint failed with a
 * {@code NoSuchFileException} (or linked a torn family).
 */
class CheckpointDropRaceTest {
    private static final int KEYS = 300;

    @TempDir
    Path tmp;

    private static StoreConfig config() {
        return StoreConfig.builder().walMode(WalSyncMode.ASYNC).memtableBytes(16 << 10).mergePolicy("no-merge").build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aFamilyDroppedWhileACheckpointLinksItsTablesIsInTheCheckpointWholeAndGoneFromTheStore() throws Exception {
        Path dir = tmp.resolve("store");
        Path checkpoint = tmp.resolve("checkpoint");
        TreeMap<String, String> modelDefault = new TreeMap<>();
        TreeMap<String, String> modelB = new TreeMap<>();
        AtomicReference<Throwable> dropFailure = new AtomicReference<>();
        CountDownLatch dropWaitsOrIsDone = new CountDownLatch(1);
        Thread[] dropper = new Thread[1];
        List<String> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily fam = store.createColumnFamily("b", FamilyOptions.defaults());
            for (int i = 0; i < KEYS; i++) {
                String k = TestKeys.padded("k", i, 5);
                String v = "value-" + i + "-".repeat(100);
                store.put(b(k), b(v));
                modelDefault.put(k, v);
                store.put(fam, b(k), b("b" + v));
                modelB.put(k, "b" + v);
            }
            store.flush(); // tables on disk in both families; later writes reach the WAL tail only
            for (int i = KEYS; i < KEYS + 20; i++) {
                String k = TestKeys.padded("k", i, 5);
                store.put(fam, b(k), b("tail" + i));
                modelB.put(k, "tail" + i);
            }
            Path familyDir = dir.resolve("families").resolve(Integer.toString(fam.id()));
            assertTrue(Files.isDirectory(familyDir), "family b's directory " + familyDir);
            TestAccess.engine(store).opsHook(step -> {
                steps.add(step);
                if (step.equals("drop waits for checkpoint")) {
                    dropWaitsOrIsDone.countDown();
                } else if (step.equals("checkpoint pinned") && dropper[0] == null) {
                    dropper[0] = new Thread(() -> {
                        try {
                            store.dropColumnFamily(fam);
                        } catch (Throwable t) {
                            dropFailure.set(t);
                        } finally {
                            dropWaitsOrIsDone.countDown();
                        }
                    }, "family-dropper");
                    dropper[0].start();
                    try {
                        // Until the drop is done (its directory deleted, before the fix) or waits.
                        assertTrue(dropWaitsOrIsDone.await(30, TimeUnit.SECONDS), "the drop neither finished nor waited");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            store.checkpoint(checkpoint);
            assertTrue(dropper[0] != null, "the checkpoint never told the hook it pinned the families");
            dropper[0].join(30_000);
            assertFalse(dropper[0].isAlive(), "the drop did not finish once the checkpoint was done");
            assertNull(dropFailure.get(), () -> "the drop failed: " + dropFailure.get());
            assertEquals(List.of("checkpoint listed wal", "checkpoint pinned", "drop waits for checkpoint"), steps);
            assertEquals(List.of("default"), store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertFalse(Files.exists(familyDir), "the dropped family's directory is deleted once the checkpoint is done");
        }
        try (LsmStore copy = LsmStore.open(checkpoint, config())) {
            ColumnFamily fam = copy.columnFamily("b");
            assertEquals(modelDefault, dump(copy, copy.defaultColumnFamily()));
            assertEquals(modelB, dump(copy, fam));
            assertArrayEquals(b("tail" + KEYS), copy.get(fam, b(TestKeys.padded("k", KEYS, 5))));
        }
        try (LsmStore reopened = LsmStore.open(dir, config())) {
            assertEquals(List.of("default"), reopened.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertEquals(modelDefault, dump(reopened, reopened.defaultColumnFamily()));
        }
    }

    private static TreeMap<String, String> dump(LsmStore store, ColumnFamily family) {
        TreeMap<String, String> out = new TreeMap<>();
        for (int i = 0; i < KEYS + 20; i++) {
            String k = TestKeys.padded("k", i, 5);
            byte[] v = store.get(family, b(k));
            if (v != null) {
                out.put(k, new String(v, StandardCharsets.US_ASCII));
            }
        }
        return out;
    }
}
