package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policies.RecordingPolicy;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * VL1 and VL3's selection on the engine: {@code vlsm} runs inside a store (merges on a
 * background thread, decisions on views with running merges) under unique uniform inserts,
 * and every decision is checked on the view it was made on — a merge out of level 0 takes
 * exactly one level-0 SST, the oldest; a level-1 → level-2 merge takes exactly the window of
 * adjacent vSSTs (good ones — at most f level-2 SSTs under each — when an idle good one
 * exists) that {@link VlsmWindowTest}'s brute-force reference picks on that view.
 */
@SlowTest
class VlsmEngineTraceTest {
    /** Memtable and vSST size: 64 KiB (the shape 256 KiB gives, with a quarter of the bytes). */
    private static final long SST = 64 << 10;
    private static final int F = 8;

    @Test
    void everyDecisionInTheEngineFollowsTheRule(@TempDir Path dir) {
        run(dir, false);
    }

    /**
     * The same with {@code split-flush}: an 8·S_M memtable flushed as S_M SSTs (one level-0 run
     * each flush); each merge out of level 0 still takes one SST, the oldest (the oldest run's
     * first in key order, which the engine created first).
     */
    @Test
    void withSplitFlushEveryMergeOutOfLevel0TakesOneSst(@TempDir Path dir) {
        run(dir, true);
    }

    private static void run(Path dir, boolean split) {
        RecordingPolicy<Void> vlsm = RecordingPolicy.of("vlsm", Map.of("sst-bytes", "64KiB", "growth",
                Integer.toString(F), "split-flush", Boolean.toString(split)));
        StoreConfig config = StoreConfig.builder().memtableBytes(split ? 8 * SST : SST).maxImmutableMemtables(1)
                .blockCacheBytes(1 << 20).mergePolicy(vlsm).build();
        // 37,500 entries (~73 flushes of S_M) in the fast lane, 112,500 in the slow lane (VlsmEngineTraceTest at multiplier 3).
        assertEquals(0, RecordingPolicy.fillRandom(dir, config, 11, TestScale.scaled(37_500)));
        List<String> problems = new ArrayList<>();
        int[] counts = new int[2];
        int widestLevel0Run = 0;
        for (RecordingPolicy.Decision<Void> d : vlsm.decisions()) {
            for (var run : d.view().level(0).runs()) {
                widestLevel0Run = Math.max(widestLevel0Run, run.components().size());
            }
            for (MergeTask task : d.tasks()) {
                check(d.view(), task, problems, counts);
            }
        }
        System.out.printf("vlsm on the engine%s: %d decisions, %d merges out of level 0, %d level-1 merges, "
                + "%d violations, widest level-0 run %d SSTs%n", split ? " (split-flush)" : "", vlsm.decisions().size(),
                counts[0], counts[1], problems.size(), widestLevel0Run);
        assertTrue(problems.isEmpty(), problems.size() + " violations, first: "
                + problems.subList(0, Math.min(5, problems.size())));
        assertTrue(counts[0] > 50 && counts[1] > 10, "merges out of level 0 and level 1: " + counts[0] + ", "
                + counts[1]);
        if (split) {
            assertTrue(widestLevel0Run >= 4, "a split flush is a run of several SSTs: " + widestLevel0Run);
        } else {
            assertEquals(1, widestLevel0Run, "one SST per flush");
        }
    }

    private static void check(TreeView v, MergeTask task, List<String> problems, int[] counts) {
        if (task.mode() == MergeMode.MOVE) {
            return;
        }
        String where = "view after flush " + v.flushCounter() + ": " + task;
        Set<ComponentId> inputs = new HashSet<>(task.inputs());
        List<ComponentView> level0 = VlsmTraceTest.files(v, 0);
        List<ComponentView> taken0 = level0.stream().filter(c -> inputs.contains(c.id())).toList();
        if (!taken0.isEmpty()) {
            counts[0]++;
            ComponentView oldest = level0.stream().min(Comparator.comparingLong(ComponentView::creationOrder))
                    .orElseThrow();
            if (taken0.size() != 1 || !taken0.get(0).id().equals(oldest.id())) {
                problems.add("VL1 not exactly the oldest level-0 SST: " + where);
            }
            return;
        }
        List<ComponentView> level1 = VlsmTraceTest.files(v, 1);
        if (level1.stream().noneMatch(c -> inputs.contains(c.id()))) {
            return; // deeper levels: ordinary leveled merges
        }
        counts[1]++;
        List<ComponentView> level2 = VlsmTraceTest.files(v, 2);
        Set<ComponentId> claimed = new HashSet<>();
        v.runningMerges().forEach(r -> {
            if (r.placement().anchor() != null) {
                claimed.add(r.placement().anchor());
            }
        });
        VlsmWindowTest.Window want = VlsmWindowTest.reference(level1, level2, true, claimed, SST, F);
        Set<ComponentId> expected = new HashSet<>();
        if (want != null) {
            level1.subList(want.from(), want.to() + 1).forEach(c -> expected.add(c.id()));
            want.below().forEach(c -> expected.add(c.id()));
        }
        if (!expected.equals(inputs)) {
            problems.add("VL3 not the reference window " + want + ": " + where);
        }
    }
}
