package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lazy deletion of obsolete table files in batches ({@link StoreConfig#obsoleteDeleteBatchBytes()}). */
class LazyDeletionTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private void mergeLevelZeroAtThreeRuns() {
        policy.standingScript.set(tree -> {
            if (tree.components().stream().anyMatch(v -> v.busy()) || tree.level(0).runs().size() < 3) {
                return List.of();
            }
            List<ComponentId> ids = new ArrayList<>();
            tree.components().forEach(v -> ids.add(v.id()));
            return List.of(MergeTask.rewrite(ids, Placement.newRun(1), OutputSpec.singleFile(), "all into one"));
        });
    }

    private Set<Long> tableFiles() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst"))
                    .map(n -> Long.parseLong(n.substring(0, n.length() - 4))).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static Set<Long> set(long[] numbers) {
        return Arrays.stream(numbers).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    private void write(LsmStore store, int from, int to) {
        for (int i = from; i < to; i++) {
            store.put(TestKeys.padded("k", i, 8).getBytes(UTF_8), ("v".repeat(60) + i).getBytes(UTF_8));
        }
    }

    @Test
    void obsoleteTablesWaitForABatchAndGoAtClose() throws IOException {
        mergeLevelZeroAtThreeRuns();
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy)
                .obsoleteDeleteBatchBytes(1L << 30).build();
        long[] live;
        try (LsmStore store = LsmStore.open(dir, config)) {
            write(store, 0, 20_000);
            store.flush();
            store.awaitMerges();
            assertTrue(store.stats().mergeCount() >= 3, "merges ran: " + store.stats().mergeCount());
            live = store.stats().liveTableFileNumbers();
            Set<Long> onDisk = tableFiles();
            assertTrue(onDisk.containsAll(set(live)) && onDisk.size() > live.length + 3,
                    "obsolete tables kept below the batch: " + onDisk + " live " + Arrays.toString(live));
        }
        assertEquals(set(live), tableFiles(), "close deleted what the batch held");
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertArrayEquals(("v".repeat(60) + 12_345).getBytes(UTF_8), store.get("k00012345".getBytes(UTF_8)));
        }
    }

    @Test
    void aBatchReachedIsDeletedWhileTheStoreRuns() throws IOException {
        mergeLevelZeroAtThreeRuns();
        // Each merge leaves at least three 64 KiB tables: a 100 KiB batch fills with every merge.
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy)
                .obsoleteDeleteBatchBytes(100 << 10).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            write(store, 0, 20_000);
            store.flush();
            store.awaitMerges();
            // awaitMerges waited for the sweeps the merges queued on the merge pool.
            long[] live = store.stats().liveTableFileNumbers();
            Set<Long> onDisk = tableFiles();
            // Below one batch may stay (an obsolete table or two smaller than 100 KiB together).
            assertTrue(onDisk.size() <= live.length + 2, "deleted in batches: " + onDisk + " live "
                    + Arrays.toString(live));
        }
    }

    /** Without batching, {@code awaitMerges} returns after the sweep of what the merges made obsolete. */
    @RepeatedTest(5)
    void awaitMergesWaitsForTheSweep(@TempDir Path store) throws IOException {
        mergeLevelZeroAtThreeRuns();
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).build();
        try (LsmStore s = LsmStore.open(store, config)) {
            for (int round = 0; round < 4; round++) {
                write(s, round * 5_000, (round + 1) * 5_000);
                s.flush();
                s.awaitMerges();
                Set<Long> onDisk;
                try (Stream<Path> files = Files.list(store)) {
                    onDisk = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst"))
                            .map(n -> Long.parseLong(n.substring(0, n.length() - 4)))
                            .collect(Collectors.toCollection(TreeSet::new));
                }
                assertEquals(set(s.stats().liveTableFileNumbers()), onDisk, "round " + round
                        + ": right after awaitMerges the directory holds the live tables only");
            }
        }
    }

}
