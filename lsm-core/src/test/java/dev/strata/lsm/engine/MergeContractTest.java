package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine honours a {@link MergeTask}'s mode and output spec, or rejects the task as a
 * policy error: a MOVE is a metadata-only edit, a REUSE_BLOCKS task that does not name a
 * run to merge into is refused (the mode itself is tested in {@link ReuseBlocksTest}), and
 * an output spec cuts the merge's output.
 */
class MergeContractTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private StoreConfig config() {
        return StoreConfig.builder().memtableBytes(1 << 20).mergePolicy(policy).build();
    }

    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "v".repeat(60)).getBytes(UTF_8);
    }

    /** Two flushes of disjoint key ranges ('a' then 'b'); the script runs once level 0 holds both. */
    private LsmStore twoRunsThen(Function<TreeView, List<MergeTask>> script) {
        LsmStore store = LsmStore.open(dir, config());
        for (int i = 0; i < 2000; i++) {
            store.put(key('a', i), value(i));
        }
        store.flush();
        policy.script.set(tree -> tree.level(0).runs().size() == 2 ? script.apply(tree) : List.of());
        for (int i = 0; i < 2000; i++) {
            store.put(key('b', i), value(i));
        }
        store.flush();
        store.awaitMerges();
        return store;
    }

    private static List<ComponentId> l0(TreeView tree, int run) {
        return tree.level(0).runs().get(run).components().stream().map(ComponentView::id).toList();
    }

    private static void assertAllThere(LsmStore store) {
        for (int i = 0; i < 2000; i++) {
            assertArrayEquals(value(i), store.get(key('a', i)), "a " + i);
            assertArrayEquals(value(i), store.get(key('b', i)), "b " + i);
        }
    }

    @Test
    void moveIsAVersionEditThatWritesNoTable() {
        try (LsmStore store = twoRunsThen(tree -> List.of(MergeTask.move(l0(tree, 1), Placement.newRun(1), "down")))) {
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), "policy errors");
            assertEquals(0, stats.mergeBytesWritten(), "a move writes no table bytes");
            assertEquals(1, stats.componentsPerLevel()[0]);
            assertEquals(1, stats.componentsPerLevel()[1]);
            assertAllThere(store);
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertEquals(1, store.stats().componentsPerLevel()[1], "the move survives a reopen");
            assertAllThere(store);
        }
    }

    @Test
    void bytesWrittenAreCountedByTheKindOfTheirTask() {
        try (LsmStore store = twoRunsThen(tree -> List.of(MergeTask.rewrite(
                List.of(l0(tree, 0).get(0), l0(tree, 1).get(0)), Placement.newRun(1), OutputSpec.singleFile(),
                "labelled").withKind("demo-kind")))) {
            StoreStats s = store.stats();
            assertTrue(s.flushBytesWritten() > 0 && s.mergeBytesWritten() > 0, s.toString());
            assertEquals(Map.of(MergeTask.FLUSH, s.flushBytesWritten(), "demo-kind", s.mergeBytesWritten()),
                    s.bytesWrittenByKind());
            assertAllThere(store);
        }
    }

    @Test
    void aMergeWithoutAKindIsCountedAsUnlabelled() {
        try (LsmStore store = twoRunsThen(tree -> List.of(MergeTask.rewrite(
                List.of(l0(tree, 0).get(0), l0(tree, 1).get(0)), Placement.newRun(1), OutputSpec.singleFile(),
                "no kind")))) {
            StoreStats s = store.stats();
            assertEquals(Map.of(MergeTask.FLUSH, s.flushBytesWritten(), MergeTask.UNLABELLED, s.mergeBytesWritten()),
                    s.bytesWrittenByKind());
        }
    }

    @Test
    void aBadKindIsRefusedByName() {
        List<ComponentId> in = List.of(new ComponentId(1, 0));
        MergeTask task = MergeTask.rewrite(in, Placement.newRun(1), OutputSpec.singleFile(), "r");
        for (String bad : List.of("Partitioned", "two words", "-dash", MergeTask.FLUSH, "x".repeat(33))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> task.withKind(bad));
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
        assertEquals("intra-l0", task.withKind("intra-l0").withPriority(3).withOutput(OutputSpec.maxFileBytes(1 << 20))
                .kind(), "copies keep the kind");
        assertEquals(task.toString(), task.withKind("intra-l0").toString(), "the kind is not in golden traces");
    }

    @Test
    void moveOfAnOlderRunInFrontOfADisjointNewerOneIsExecuted() {
        // Older data in front of newer is stable only because the key ranges are disjoint.
        try (LsmStore store = twoRunsThen(tree -> List.of(new MergeTask(l0(tree, 1),
                Placement.newRun(0), OutputSpec.singleFile(), MergeMode.MOVE, 0, "swap")))) {
            // Disjoint key ranges: the swap is still stable, so it is executed.
            assertEquals(0, store.stats().policyErrors());
            assertAllThere(store);
        }
    }

    @Test
    void reuseBlocksIntoANewRunIsRejectedAsAPolicyError() {
        try (LsmStore store = twoRunsThen(tree -> List.of(new MergeTask(
                List.of(l0(tree, 0).get(0), l0(tree, 1).get(0)), Placement.newRun(1), OutputSpec.singleFile(),
                MergeMode.REUSE_BLOCKS, 0, "reuse")))) {
            StoreStats stats = store.stats();
            assertEquals(1, stats.policyErrors(), "REUSE_BLOCKS must be refused, not silently rewritten");
            assertEquals(0, stats.mergeBytesWritten());
            assertEquals(2, stats.componentsPerLevel()[0]);
            assertAllThere(store);
        }
    }

    @Test
    void outputSpecCutsTheMergeOutput() {
        OutputSpec spec = OutputSpec.maxFileBytes(32 << 10);
        try (LsmStore store = twoRunsThen(tree -> List.of(MergeTask.rewrite(
                List.of(l0(tree, 0).get(0), l0(tree, 1).get(0)), Placement.newRun(1), spec, "cut")))) {
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors());
            assertTrue(stats.componentsPerLevel()[1] >= 5, "cut into several files: " + stats);
            assertAllThere(store);
        }
    }

    @Test
    void outputsAlignWithTheFilesOfANamedLevel() {
        // Merge both runs, cut at the boundary between the two level-0 files ('a' | 'b').
        try (LsmStore store = twoRunsThen(tree -> List.of(MergeTask.rewrite(
                List.of(l0(tree, 0).get(0), l0(tree, 1).get(0)), Placement.newRun(1),
                OutputSpec.singleFile().alignedTo(0), "aligned")))) {
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors());
            assertEquals(2, stats.componentsPerLevel()[1], "one output per file of level 0: " + stats);
            assertAllThere(store);
        }
    }

    @Test
    void aFlushPlanThatMergesCutsItsOutput() {
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < 2000; i++) {
                store.put(key('a', i), value(i));
            }
            store.flush();
            // The next flush merges with the 'a' table (an eager dividing merge), cut at 32 KiB.
            policy.flushScript.set(tree -> FlushPlan.mergeWith(l0(tree, 0), Placement.newRun(1), "divide")
                    .withOutput(OutputSpec.maxFileBytes(32 << 10)));
            for (int i = 0; i < 2000; i++) {
                store.put(key('b', i), value(i));
            }
            store.flush();
            store.awaitMerges();
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors());
            assertEquals(0, stats.componentsPerLevel()[0]);
            assertTrue(stats.componentsPerLevel()[1] >= 5, "the flush's merge output was cut: " + stats);
            assertAllThere(store);
        }
    }

    /**
     * A merge whose inputs lie on both sides of a file of the target run that it does not
     * read is valid when its output is cut at that file (vLSM's level-1 merges): validation
     * splits its stand-in output at the cut keys. Without the cut it is refused.
     */
    @Test
    void aMergeCutAroundAFileItDoesNotReadIsAccepted() {
        for (boolean cut : new boolean[] {true, false}) {
            java.nio.file.Path sub = dir.resolve(cut ? "cut" : "uncut");
            try (LsmStore store = LsmStore.open(sub, config())) {
                // Level 1: three files, 'a', 'm' and 'z' keys.
                for (char r : new char[] {'a', 'm', 'z'}) {
                    for (int i = 0; i < 500; i++) {
                        store.put(key(r, i), value(i));
                    }
                }
                policy.script.set(tree -> tree.level(0).runs().isEmpty() ? List.of() : List.of(MergeTask.rewrite(
                        l0(tree, 0), Placement.newRun(1), OutputSpec.singleFile().withCutKeys(List.of(
                                "m".getBytes(UTF_8), "z".getBytes(UTF_8))), "three files")));
                store.flush();
                store.awaitMerges();
                assertEquals(3, store.stats().componentsPerLevel()[1]);
                // Level 0: a file of new 'a' keys and one of new 'z' keys; merged with the 'a' and
                // 'z' files of level 1, not the 'm' one between them.
                for (int i = 0; i < 500; i += 2) {
                    store.put(key('a', i), value(i + 1));
                }
                store.flush();
                for (int i = 0; i < 500; i += 2) {
                    store.put(key('z', i), value(i + 1));
                }
                List<byte[]> cuts = cut ? List.of("m".getBytes(UTF_8), "n".getBytes(UTF_8)) : List.of();
                policy.script.set(tree -> {
                    if (tree.level(0).runs().size() < 2) {
                        return List.of();
                    }
                    List<ComponentView> l1 = tree.level(1).runs().get(0).components();
                    List<ComponentId> inputs = new java.util.ArrayList<>(l0(tree, 0));
                    inputs.addAll(l0(tree, 1));
                    inputs.add(l1.get(0).id());
                    inputs.add(l1.get(2).id());
                    return List.of(MergeTask.rewrite(inputs, Placement.intoRunOf(1, l1.get(0).id()),
                            OutputSpec.singleFile().withCutKeys(cuts), "around m"));
                });
                store.flush();
                store.awaitMerges();
                StoreStats stats = store.stats();
                assertEquals(cut ? 0 : 1, stats.policyErrors(), (cut ? "cut: accepted " : "uncut: refused ") + stats);
                assertEquals(cut ? 0 : 2, stats.componentsPerLevel()[0], stats.toString());
                for (int i = 0; i < 500; i++) {
                    int v = i % 2 == 0 ? i + 1 : i;
                    assertArrayEquals(value(v), store.get(key('a', i)));
                    assertArrayEquals(value(i), store.get(key('m', i)));
                    assertArrayEquals(value(v), store.get(key('z', i)));
                }
            }
        }
    }
}
