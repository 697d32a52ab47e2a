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

/**
 * VL1 and VL3's selection on the engine: {@code vlsm} runs inside a store (merges on a
 * background thread, decisions on views with running merges) under unique uniform inserts,
 * and every decision is checked on the view it was made on — a merge out of level 0 takes
 * exactly one level-0 SST, the oldest; a level-1 → level-2 merge takes exactly the window of
 * adjacent vSSTs (good ones — at most f level-2 SSTs under each — when an idle good one
 * exists) that {@link VlsmWindowTest}'s brute-force reference picks on that view.
 */
class VlsmEngineTraceTest {
    /** Memtable and vSST size: 64 KiB (the shape 256 KiB gives, with a quarter of the bytes). */
    private static final long SST = 64 << 10;
    private static final int F = 8;

    @Test
    void everyDecisionInTheEngineFollowsTheRule(@TempDir Path dir) {
        RecordingPolicy<Void> vlsm = RecordingPolicy.of("vlsm", Map.of("sst-bytes", "64KiB", "growth",
                Integer.toString(F)));
        StoreConfig config = StoreConfig.builder().memtableBytes(SST).maxImmutableMemtables(1).blockCacheBytes(1 << 20)
                .mergePolicy(vlsm).build();
        // 37,500 entries (~73 flushes) in the fast lane, 112,500 in the slow lane (VlsmEngineTraceSlowTest).
        assertEquals(0, RecordingPolicy.fillRandom(dir, config, 11, TestScale.scaled(37_500)));
        List<String> problems = new ArrayList<>();
        int[] counts = new int[2];
        for (RecordingPolicy.Decision<Void> d : vlsm.decisions()) {
            for (MergeTask task : d.tasks()) {
                check(d.view(), task, problems, counts);
            }
        }
        System.out.printf("vlsm on the engine: %d decisions, %d merges out of level 0, %d level-1 merges, "
                + "%d violations%n", vlsm.decisions().size(), counts[0], counts[1], problems.size());
        assertTrue(problems.isEmpty(), problems.size() + " violations, first: "
                + problems.subList(0, Math.min(5, problems.size())));
        assertTrue(counts[0] > 50 && counts[1] > 10, "merges out of level 0 and level 1: " + counts[0] + ", "
                + counts[1]);
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
