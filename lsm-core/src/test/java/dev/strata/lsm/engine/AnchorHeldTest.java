package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A merge placed into the run of an anchor it does not consume installs into that run even
 * if another merge consumed the anchor meanwhile. Reproducer (rr with size ratio 4, 64 KiB
 * memtables): a level-0 merge into level 1 anchored on a table that a concurrent level-1
 * merge moved down, so the first merge, its work done, could not be installed ("placement
 * anchor ... is not in level 1") and level 0 kept its file.
 */
class AnchorHeldTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 7).getBytes(UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "v".repeat(100)).getBytes(UTF_8);
    }

    private static ComponentId only(TreeView tree, int level) {
        List<ComponentView> all = tree.level(level).runs().stream().flatMap(r -> r.components().stream()).toList();
        assertEquals(1, all.size(), "one component in L" + level);
        return all.get(0).id();
    }

    @Test
    void aMergeWhoseAnchorWasConsumedInstallsIntoTheAnchorsRun() {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 20).backgroundThreads(2)
                .mergePolicy(policy).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 100; i++) {
                store.put(key('b', i), value(i));
            }
            policy.script.set(tree -> tree.level(0).runs().isEmpty() ? List.of()
                    : List.of(MergeTask.move(List.of(only(tree, 0)), Placement.newRun(1), "b to L1")));
            store.flush();
            store.awaitMerges();
            // A large level-0 table (a slow merge) to be merged into the run of the small 'b' table,
            // and, in the same decision, a move of that 'b' table down (instant).
            for (int i = 0; i < 300_000; i++) {
                store.put(key('a', i), value(i));
            }
            policy.script.set(tree -> {
                if (tree.level(0).runs().isEmpty()) {
                    return List.of();
                }
                ComponentId x = only(tree, 1);
                return List.of(MergeTask.rewrite(List.of(only(tree, 0)), Placement.intoRunOf(1, x),
                                OutputSpec.maxFileBytes(8 << 20), "a into the run of b"),
                        MergeTask.move(List.of(x), Placement.newRun(2), "b down"));
            });
            store.flush();
            store.awaitMerges();
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), "both merges run: " + stats);
            assertEquals(0, stats.componentsPerLevel()[0], "the level-0 merge was installed: " + stats);
            assertTrue(stats.componentsPerLevel()[1] >= 2, "into level 1 (whose run the move emptied): " + stats);
            assertEquals(1, stats.componentsPerLevel()[2], "the anchor moved down: " + stats);
            for (int i = 0; i < 300_000; i += 997) {
                assertArrayEquals(value(i), store.get(key('a', i)));
            }
            assertArrayEquals(value(7), store.get(key('b', 7)));
        }
    }
}
