package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WriteOptions;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checkpoint of a store with a WAL and atomic flush, taken while a flush group is being
 * installed (one family's manifest edit in, the other's not yet): batches across the families
 * written with {@code disableWal} reach the checkpoint only through the group's tables (the
 * WAL tail it copies does not hold them), so the checkpoint must pin the families' versions
 * before the group's first edit or after its last, never between (issue 30). Before, it pinned
 * at once and held the default family's half of every batch and none of family a's.
 */
class FlushGroupCheckpointTest {
    private static final int BATCHES = 200;

    @TempDir
    Path tmp;

    private static StoreConfig config() {
        return StoreConfig.builder().walMode(WalSyncMode.ASYNC).atomicFlush(true).memtableBytes(1 << 20)
                .mergePolicy("no-merge").family("a", FamilyOptions.defaults()).build();
    }

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 5).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aCheckpointTakenWhileAGroupIsHalfInstalledHoldsEveryDisableWalBatchWholeOrNotAtAll() throws Exception {
        Path dir = tmp.resolve("store");
        Path checkpoint = tmp.resolve("checkpoint");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch checkpointWaitsOrIsDone = new CountDownLatch(1);
        Thread[] taker = new Thread[1];
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily a = store.columnFamily("a");
            for (int i = 0; i < BATCHES; i++) {
                byte[] v = ("v" + i).getBytes(StandardCharsets.US_ASCII);
                store.write(new WriteBatch().put(key(i), v).put(a, key(i), v), WriteOptions.defaults().disableWal(true));
            }
            TestAccess.engine(store).flushGroupHook(step -> {
                if (step.equals("checkpoint waits")) {
                    checkpointWaitsOrIsDone.countDown();
                } else if (step.equals("installed default") && taker[0] == null) {
                    // The default family's edit is in, a's is not: take the checkpoint now, and
                    // hold the install here until it has been taken or waits for the group.
                    taker[0] = new Thread(() -> {
                        try {
                            store.checkpoint(checkpoint);
                        } catch (Throwable t) {
                            failure.set(t);
                        } finally {
                            checkpointWaitsOrIsDone.countDown();
                        }
                    }, "checkpoint-taker");
                    taker[0].start();
                    try {
                        assertTrue(checkpointWaitsOrIsDone.await(30, TimeUnit.SECONDS),
                                "the checkpoint neither finished nor waited");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            store.flush();
            assertTrue(taker[0] != null, "the group never installed the default family's part");
            taker[0].join(30_000);
            assertNull(failure.get(), () -> "the checkpoint failed: " + failure.get());
        }
        try (LsmStore copy = LsmStore.open(checkpoint, config())) {
            List<ColumnFamily> families = List.of(copy.defaultColumnFamily(), copy.columnFamily("a"));
            int[] counts = new int[2];
            for (int f = 0; f < 2; f++) {
                for (int i = 0; i < BATCHES; i++) {
                    if (copy.get(families.get(f), key(i)) != null) {
                        counts[f]++;
                    }
                }
            }
            assertEquals(counts[0], counts[1], "batches in default and in a: every batch whole or absent");
            assertEquals(BATCHES, counts[0], "the checkpoint waited for the group, so it holds it");
        }
    }
}
