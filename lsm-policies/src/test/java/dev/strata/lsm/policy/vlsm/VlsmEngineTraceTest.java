package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.RecordingPolicyFactory;
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
 * exactly one level-0 SST, the oldest; a level-1 → level-2 merge takes only good vSSTs
 * (overlap with level 2 ≤ f times their bytes) when an idle good one exists, in ascending
 * overlap ratio, and no more than it needs to reach S_M.
 */
class VlsmEngineTraceTest {
    private static final long SST = 256 << 10;
    private static final int F = 8;

    @Test
    void everyDecisionInTheEngineFollowsTheRule(@TempDir Path dir) {
        RecordingVlsmFactory.DECISIONS.clear();
        StoreConfig config = StoreConfig.builder().memtableBytes(SST).maxImmutableMemtables(1).blockCacheBytes(1 << 20)
                .mergePolicy(RecordingVlsmFactory.NAME, Map.of("sst-bytes", "256KiB", "growth", Integer.toString(F)))
                .build();
        // 150,000 entries (~73 flushes) in the fast lane, 1,500,000 in the slow lane (VlsmEngineTraceSlowTest).
        assertEquals(0, RecordingPolicyFactory.fillRandom(dir, config, 11, TestScale.scaled(150_000)));
        List<String> problems = new ArrayList<>();
        int[] counts = new int[2];
        for (RecordingPolicyFactory.Decision<Void> d : RecordingVlsmFactory.DECISIONS) {
            for (MergeTask task : d.tasks()) {
                check(d.view(), task, problems, counts);
            }
        }
        System.out.printf("vlsm on the engine: %d decisions, %d merges out of level 0, %d level-1 merges, "
                + "%d violations%n", RecordingVlsmFactory.DECISIONS.size(), counts[0], counts[1], problems.size());
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
        double maxTaken = 0;
        long takenBytes = 0;
        long largestRatioBytes = 0;
        double largestRatio = -1;
        boolean idleGood = false;
        List<Double> goodLeft = new ArrayList<>();
        for (ComponentView c : level1) {
            double ratio = (double) VlsmTraceTest.overlapBytes(level2, c) / Math.max(1, c.sizeBytes());
            if (inputs.contains(c.id())) {
                maxTaken = Math.max(maxTaken, ratio);
                takenBytes += c.sizeBytes();
                if (ratio >= largestRatio) {
                    largestRatio = ratio;
                    largestRatioBytes = c.sizeBytes();
                }
            } else if (!c.busy() && ratio <= F) {
                goodLeft.add(ratio);
            }
            idleGood |= !c.busy() && ratio <= F;
        }
        if (idleGood && maxTaken > F) {
            problems.add("VL3 a poor vSST taken although a good one was idle: " + where);
        }
        for (double r : goodLeft) {
            if (r < maxTaken - 1e-9 && takenBytes - largestRatioBytes >= SST) {
                problems.add("VL3 a better good vSST (" + r + " < " + maxTaken + ") left: " + where);
            }
        }
        if (takenBytes - largestRatioBytes >= SST) {
            problems.add("VL3 not minimal (" + takenBytes + " bytes, the last " + largestRatioBytes + "): " + where);
        }
    }
}
