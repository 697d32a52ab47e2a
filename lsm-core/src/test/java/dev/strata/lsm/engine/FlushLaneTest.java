package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flushes run on their own lane: with one merge thread held inside a long merge, a flush
 * still completes (before the lane, it queued behind the merge on the shared pool).
 */
class FlushLaneTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    @Test
    void aFlushCompletesWhileTheOnlyMergeThreadIsBusy() throws Exception {
        GatedMergeIO io = new GatedMergeIO();
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).backgroundThreads(1)
                .mergePolicy(policy).storageIO(io).build();
        LsmStore store = LsmStore.open(dir, config);
        try {
            for (int i = 0; i < 1000; i++) {
                store.put(key('a', i), key('a', i));
            }
            store.flush();
            policy.script.set(tree -> tree.level(0).runs().size() == 2 ? List.of(MergeTask.of(
                    tree.level(0).runs().stream().flatMap(r -> r.components().stream()).map(ComponentView::id)
                            .toList(), Placement.newRun(1), "a long merge")) : List.<MergeTask>of());
            for (int i = 0; i < 1000; i++) {
                store.put(key('b', i), key('b', i));
            }
            store.flush();
            assertTrue(io.mergeWriting.await(30, TimeUnit.SECONDS), "the merge started and is held");
            for (int i = 0; i < 1000; i++) {
                store.put(key('c', i), key('c', i));
            }
            CompletableFuture<Void> flush = CompletableFuture.runAsync(store::flush);
            flush.get(30, TimeUnit.SECONDS); // throws TimeoutException if the flush waits for the merge
            assertEquals(3, store.stats().flushCount());
        } finally {
            io.release();
            store.awaitMerges();
            store.close();
        }
        try (LsmStore reopened = LsmStore.open(dir, StoreConfig.builder().mergePolicy(policy).build())) {
            for (char r : new char[] {'a', 'b', 'c'}) {
                for (int i = 0; i < 1000; i++) {
                    assertArrayEquals(key(r, i), reopened.get(key(r, i)), r + " " + i);
                }
            }
            assertEquals(0, reopened.stats().policyErrors());
        }
    }
}
