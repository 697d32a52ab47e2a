package dev.strata.lsm;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A policy that proposes unstable merges, merges a component twice and plans impossible
 * flushes: the engine must reject each as a policy error and keep the data correct.
 */
class BadPolicyTest {
    @TempDir
    Path dir;

    /** Registered for tests in META-INF/services as {@code test-bad}. */
    public static final class Factory implements MergePolicyFactory {
        @Override
        public String name() {
            return "test-bad";
        }

        @Override
        public String description() {
            return "proposes invalid merges (tests only)";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of();
        }

        @Override
        public MergePolicy create(PolicyParameters params) {
            return new MergePolicy() {
                /** Propose once per flush, so the one valid task cannot make it merge forever. */
                private long lastFlush = -1;

                @Override
                public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
                    // Merge the flush with the OLDEST component only: skips the newer ones (unstable).
                    List<RunView> runs = tree.level(0).runs();
                    if (runs.size() >= 2) {
                        ComponentId oldest = runs.get(runs.size() - 1).components().get(0).id();
                        return FlushPlan.mergeWith(List.of(oldest), Placement.intoRunOf(0, oldest), "unstable");
                    }
                    return FlushPlan.newComponent(Placement.newRun(0), "");
                }

                @Override
                public List<MergeTask> pickMerges(TreeView tree) {
                    List<RunView> runs = tree.level(0).runs();
                    List<MergeTask> tasks = new ArrayList<>();
                    if (runs.size() >= 3 && tree.flushCounter() != lastFlush) {
                        lastFlush = tree.flushCounter();
                        ComponentId newest = runs.get(0).components().get(0).id();
                        ComponentId oldest = runs.get(runs.size() - 1).components().get(0).id();
                        ComponentId middle = runs.get(1).components().get(0).id();
                        // Newest and oldest without the ones between: breaks stability.
                        tasks.add(MergeTask.of(List.of(newest, oldest), Placement.intoRunOf(0, oldest), "unstable"));
                        // The same component in two tasks.
                        tasks.add(MergeTask.of(List.of(middle), Placement.intoRunOf(0, middle), "first"));
                        tasks.add(MergeTask.of(List.of(middle), Placement.intoRunOf(0, middle), "twice"));
                        // A component that does not exist.
                        tasks.add(MergeTask.of(List.of(new ComponentId(999_999, 0)), Placement.newRun(0), "ghost"));
                    }
                    return tasks;
                }
            };
        }
    }

    @Test
    void invalidDecisionsAreRejectedAndDataStaysCorrect() {
        StoreConfig config = StoreConfig.builder().memtableBytes(8 * 1024).mergePolicy("test-bad").build();
        Map<String, byte[]> expected = new java.util.HashMap<>();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 3000; i++) {
                String k = "key" + (i % 700);
                byte[] v = ("v" + i).getBytes();
                store.put(k.getBytes(), v);
                expected.put(k, v);
            }
            store.flush();
            store.awaitMerges();
            assertTrue(store.stats().policyErrors() > 0, "policy errors counted");
            for (Map.Entry<String, byte[]> e : expected.entrySet()) {
                assertArrayEquals(e.getValue(), store.get(e.getKey().getBytes()), e.getKey());
            }
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (Map.Entry<String, byte[]> e : expected.entrySet()) {
                assertArrayEquals(e.getValue(), store.get(e.getKey().getBytes()), e.getKey());
            }
        }
    }
}
