package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A merge into the run of an anchor it does not consume, whose run another merge emptied
 * while it ran, is installed as a new run where that run was — not thrown away. Issue 29
 * (item 2): under {@code rr} and {@code blockdb}, a sequential load's level-0 consolidation
 * anchored on the only table of level 0's oldest run, which the saturation trigger moved down
 * meanwhile; the finished merge of up to 24 tables was refused ("placement anchor ... is not
 * in level 0") because the level still held other runs (its own inputs, newer flushes).
 * Ordered by the store's listener, not by timing: the merge waits, before it reads a byte,
 * until the move is installed and a newer flush has landed in level 0.
 */
class AnchorRunGoneTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    private static final String MERGE = "c into the run of a";
    private static final String MOVE = "a down";

    @TempDir
    Path dir;


    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 7).getBytes(UTF_8);
    }

    private static byte[] value(String generation, int i) {
        return (generation + "-" + i + "-" + "v".repeat(100)).getBytes(UTF_8);
    }

    private static ComponentId only(RunView run) {
        assertEquals(1, run.components().size(), "one component in " + run);
        return run.components().get(0).id();
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void aMergeWhoseAnchorsRunWasEmptiedInstallsWhereThatRunWas() {
        CountDownLatch moved = new CountDownLatch(1);
        CountDownLatch flushed = new CountDownLatch(1);
        Queue<String> ended = new ConcurrentLinkedQueue<>();
        StoreListener listener = new StoreListener() {
            @Override
            public void mergeStarted(String reason) {
                if (reason.equals(MERGE)) {
                    await(flushed); // until the anchor's run is gone and a newer run is in level 0
                }
            }

            @Override
            public void mergeEnded(String reason, boolean installed) {
                ended.add(reason + (installed ? ": installed" : ": not installed"));
                if (reason.equals(MOVE) && installed) {
                    moved.countDown();
                }
            }
        };
        AtomicReference<TreeView> last = new AtomicReference<>();
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 20).backgroundThreads(2).listener(listener)
                .mergePolicy(policy).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 100; i++) {
                store.put(key('a', i), value("a", i));
            }
            store.flush(); // L0: [a]
            for (int i = 0; i < 1000; i++) {
                store.put(key('c', i), value("old", i));
            }
            // Level 0 holds [c, a]: merge c into a's run (anchored on the 'a' table, not an input),
            // and in the same decision move that table, its run's only one, down to level 1.
            policy.script.set(tree -> {
                last.set(tree);
                if (tree.level(0).runs().size() < 2) {
                    return List.of();
                }
                ComponentId c = only(tree.level(0).runs().get(0));
                ComponentId a = only(tree.level(0).runs().get(1));
                return List.of(MergeTask.rewrite(List.of(c), Placement.intoRunOf(0, a), OutputSpec.maxFileBytes(8 << 20),
                                MERGE),
                        MergeTask.move(List.of(a), Placement.newRun(1), MOVE));
            });
            store.flush();
            assertTrue(await(moved), "the move was installed: " + ended);
            policy.script.set(tree -> {
                last.set(tree);
                return List.of();
            });
            // A newer run in level 0 while the merge waits, overwriting some of its keys.
            for (int i = 0; i < 1000; i += 10) {
                store.put(key('c', i), value("new", i));
            }
            store.flush();
            flushed.countDown();
            store.awaitMerges();
            StoreStats stats = store.stats();
            assertEquals(List.of(MOVE + ": installed", MERGE + ": installed"), List.copyOf(ended), stats.toString());
            assertEquals(0, stats.policyErrors(), "the merge was installed: " + stats);
            TreeView tree = last.get();
            List<RunView> level0 = tree.level(0).runs();
            assertEquals(2, level0.size(), "the newer flush and the merge's output: " + tree);
            ComponentView flush = level0.get(0).components().get(0);
            ComponentView merged = level0.get(1).components().get(0);
            assertTrue(flush.minSeqno() > merged.maxSeqno(), "the flush's run is the newer: " + tree);
            assertEquals(1, tree.level(1).runs().size(), "the anchor moved down: " + tree);
            for (int i = 0; i < 1000; i++) {
                assertArrayEquals(value(i % 10 == 0 ? "new" : "old", i), store.get(key('c', i)), "c " + i);
            }
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(value("a", i), store.get(key('a', i)), "a " + i);
            }
        }
    }
}
