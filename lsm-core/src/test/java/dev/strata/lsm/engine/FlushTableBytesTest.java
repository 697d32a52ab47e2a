package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.SeedOnFailure;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MergePolicy#flushTableBytes()}: a flush written as several tables of at most that
 * size lands as one run (or is merged whole), the policy plans it as one component, a bad
 * answer is a policy error, and the data is intact across a reopen.
 */
@ExtendWith(SeedOnFailure.class)
class FlushTableBytesTest {
    private static final long TABLE = 64 << 10;
    /**
     * A table is cut once its leaves reach TABLE (SSTableWriter.estimatedBytes: the pages written
     * plus one): the last entry's page, the interior pages, the bloom filter and the footer come
     * on top, a few pages.
     */
    private static final long OVER = 4 * 4096;
    private static final int VALUE = 100;

    @TempDir
    Path dir;

    /** A policy that never merges on its own; it records the flush views and the trees it sees. */
    private static class SplittingPolicy implements MergePolicy {
        final long tableBytes;
        final boolean mergeFlushIntoNewest;
        final List<ComponentView> flushViews = new ArrayList<>();
        final AtomicReference<TreeView> lastTree = new AtomicReference<>();

        SplittingPolicy(long tableBytes, boolean mergeFlushIntoNewest) {
            this.tableBytes = tableBytes;
            this.mergeFlushIntoNewest = mergeFlushIntoNewest;
        }

        @Override
        public long flushTableBytes() {
            return tableBytes;
        }

        @Override
        public synchronized FlushPlan planFlush(TreeView tree, ComponentView flushed) {
            flushViews.add(flushed);
            List<RunView> runs = tree.level(0).runs();
            if (mergeFlushIntoNewest && !runs.isEmpty()) {
                RunView newest = runs.get(0);
                return FlushPlan.mergeWith(newest.components().stream().map(ComponentView::id).toList(),
                        Placement.intoRunOf(0, newest.components().get(0).id()), "merge into the newest run")
                        .withOutput(OutputSpec.maxFileBytes(TABLE));
            }
            return FlushPlan.newComponent(Placement.newRun(0), "");
        }

        @Override
        public List<MergeTask> pickMerges(TreeView tree) {
            lastTree.set(tree);
            return List.of();
        }
    }

    private StoreConfig config(MergePolicy policy) {
        return StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy).build();
    }

    private static byte[] key(int i) {
        return TestKeys.padded("key", i, 8).getBytes();
    }

    /** Writes {@code n} random keys (values from {@code seed}) and flushes; returns what was written. */
    private static TreeMap<Integer, byte[]> fill(LsmStore store, int n, long seed) {
        Random r = new Random(seed);
        TreeMap<Integer, byte[]> written = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(1_000_000);
            byte[] v = new byte[VALUE];
            r.nextBytes(v);
            store.put(key(k), v);
            written.put(k, v);
        }
        store.flush();
        return written;
    }

    private static void assertAll(LsmStore store, TreeMap<Integer, byte[]> written) {
        written.forEach((k, v) -> assertArrayEquals(v, store.get(key(k)), "key " + k));
    }

    @Test
    void aFlushLargerThanTheTableSizeLandsAsOneRunOfBoundedTablesAndSurvivesAReopen() {
        long seed = TestSeed.orRandom();
        SplittingPolicy policy = new SplittingPolicy(TABLE, false);
        TreeMap<Integer, byte[]> written;
        try (LsmStore store = LsmStore.open(dir, config(policy))) {
            written = fill(store, 6000, seed); // ~800 KB of tables: more than 10 of 64 KiB
            store.awaitMerges();
            assertEquals(0, store.stats().policyErrors(), "policy errors");
            TreeView tree = policy.lastTree.get();
            List<RunView> runs = tree.level(0).runs();
            assertEquals(1, runs.size(), "one flush, one run");
            List<ComponentView> tables = runs.get(0).components();
            long total = tables.stream().mapToLong(ComponentView::sizeBytes).sum();
            assertTrue(tables.size() >= total / (TABLE + OVER) && tables.size() >= 10,
                    "tables: " + tables.size() + " for " + total + " bytes");
            for (int i = 0; i < tables.size(); i++) {
                ComponentView t = tables.get(i);
                assertTrue(t.sizeBytes() <= TABLE + OVER, "table " + i + ": " + t.sizeBytes() + " bytes");
                assertTrue(i == tables.size() - 1 || t.sizeBytes() >= TABLE - 4096, "table " + i + " cut early: "
                        + t.sizeBytes() + " bytes");
                if (i > 0) {
                    assertTrue(Arrays.compareUnsigned(tables.get(i - 1).maxKey(), t.minKey()) < 0,
                            "tables " + (i - 1) + " and " + i + " overlap");
                }
            }
            assertEquals(1, policy.flushViews.size(), "the policy plans the flush once");
            ComponentView view = policy.flushViews.get(0);
            assertEquals(total, view.sizeBytes(), "the flush view's size is the tables' sum");
            assertArrayEquals(tables.get(0).minKey(), view.minKey());
            assertArrayEquals(tables.get(tables.size() - 1).maxKey(), view.maxKey());
            assertEquals(written.size(), view.entryCount(), "entries of the whole flush");
            assertEquals(1, store.stats().flushCount(), "one flush counted");
            assertAll(store, written);
        }
        SplittingPolicy again = new SplittingPolicy(Long.MAX_VALUE, false);
        try (LsmStore store = LsmStore.open(dir, config(again))) {
            assertTrue(store.stats().componentsPerLevel()[0] >= 10, "the tables survive a reopen");
            assertAll(store, written);
            TreeMap<Integer, byte[]> more = fill(store, 500, seed + 1); // one table by default now
            store.awaitMerges();
            List<RunView> runs = again.lastTree.get().level(0).runs();
            assertEquals(2, runs.size());
            assertEquals(1, runs.get(0).components().size(), "Long.MAX_VALUE: one table per flush");
            written.putAll(more);
            assertAll(store, written);
        }
    }

    @Test
    void aPlanThatMergesTheFlushMergesAllItsTables() {
        long seed = TestSeed.orRandom();
        SplittingPolicy policy = new SplittingPolicy(TABLE, true);
        TreeMap<Integer, byte[]> written;
        try (LsmStore store = LsmStore.open(dir, config(policy))) {
            written = fill(store, 3000, seed);
            written.putAll(fill(store, 3000, seed + 1)); // merged with the first flush's run
            store.awaitMerges();
            assertEquals(0, store.stats().policyErrors(), "policy errors");
            List<RunView> runs = policy.lastTree.get().level(0).runs();
            assertEquals(1, runs.size(), "the second flush was merged into the first's run");
            for (ComponentView t : runs.get(0).components()) {
                assertTrue(t.sizeBytes() <= TABLE + OVER, "merged table of " + t.sizeBytes() + " bytes");
            }
            assertEquals(2, store.stats().flushCount());
            assertAll(store, written);
        }
        try (LsmStore store = LsmStore.open(dir, config(new SplittingPolicy(Long.MAX_VALUE, false)))) {
            assertAll(store, written);
            long live = Arrays.stream(store.stats().liveTableFileNumbers()).count();
            assertEquals(store.stats().componentsPerLevel()[0], live, "no table of the merged flush left live");
        }
    }

    @Test
    void aTableSizeBelowOneIsAPolicyErrorAndTheFlushIsOneTable() {
        long seed = TestSeed.orRandom();
        SplittingPolicy policy = new SplittingPolicy(0, false);
        try (LsmStore store = LsmStore.open(dir, config(policy))) {
            TreeMap<Integer, byte[]> written = fill(store, 2000, seed);
            store.awaitMerges();
            assertTrue(store.stats().policyErrors() >= 1, "a table size of 0 is a policy error");
            assertEquals(1, policy.lastTree.get().level(0).runs().get(0).components().size(), "one table");
            assertAll(store, written);
        }
    }
}
