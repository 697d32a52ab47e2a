package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A close stops a running merge (as RocksDB's close cancels running compactions) instead of
 * waiting for its end: the merge's outputs are deleted, its inputs stay, and the store opens
 * again with every entry, in the tables it had before the merge.
 */
class MergeStopsOnCloseTest {
    private static final int KEYS = 3 * StopOnCloseIterator.CHECK_EVERY;

    private final ScriptedPolicy policy = new ScriptedPolicy();

    @TempDir
    Path tmp;

    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    /** A value large enough that the merge writes its output while most of its input is still to come. */
    private static byte[] value(char range, int i) {
        byte[] v = new byte[200];
        byte[] k = key(range, i);
        System.arraycopy(k, 0, v, 0, k.length);
        return v;
    }

    @Test
    void closeStopsARunningMergeAndTheStoreOpensWithItsTablesBeforeTheMerge() throws Exception {
        Path dir = tmp.resolve("db");
        GatedMergeIO io = new GatedMergeIO();
        StoreConfig config = StoreConfig.builder().memtableBytes(8 << 20).backgroundThreads(1)
                .mergePolicy(policy).storageIO(io).build();
        LsmStore store = LsmStore.open(dir, config);
        for (int i = 0; i < KEYS; i++) {
            store.put(key('a', i), value('a', i));
        }
        store.flush();
        policy.script.set(tree -> tree.level(0).runs().size() == 2 ? List.of(MergeTask.of(
                tree.level(0).runs().stream().flatMap(r -> r.components().stream()).map(ComponentView::id)
                        .toList(), Placement.newRun(1), "a merge the close stops")) : List.<MergeTask>of());
        for (int i = 0; i < KEYS; i++) {
            store.put(key('b', i), value('b', i));
        }
        store.flush();
        int tables = store.stats().componentCount();
        assertTrue(io.mergeWriting.await(30, TimeUnit.SECONDS), "the merge started and is held");

        CompletableFuture<Void> close = CompletableFuture.runAsync(store::close);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                store.get(key('a', 0));
            } catch (StoreClosedException e) {
                break;   // closed: the close now waits for the running merge
            }
            assertTrue(System.nanoTime() < deadline, "the store did not close");
            Thread.sleep(5);
        }
        io.release();
        close.get(30, TimeUnit.SECONDS);

        try (LsmStore reopened = LsmStore.open(dir, StoreConfig.builder().memtableBytes(1 << 20)
                .mergePolicy(policy).build())) {
            assertEquals(tables, reopened.stats().componentCount(),
                    "the merge was stopped: the two flushes' tables are the store's tables");
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value('a', i), reopened.get(key('a', i)));
                assertArrayEquals(value('b', i), reopened.get(key('b', i)));
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(tables, files.filter(p -> p.getFileName().toString().endsWith(".sst")).count(),
                    "the stopped merge's outputs are deleted");
        }
    }
}
