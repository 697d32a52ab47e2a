package dev.strata.lsm.policy.basic;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.ArrayList;
import java.util.List;

/**
 * A simple, stable size-tiered policy over one level used as a stack: flushes enter as the
 * newest run; scanning from the newest run, the first window of {@code fanout} adjacent idle
 * runs whose largest is at most {@code sizeRatio} times its smallest is merged into the
 * position of its oldest run. When {@code maxRuns} runs exist, the newest {@code fanout}
 * idle runs are merged regardless of size, and writers wait until the count drops.
 *
 * <p>Those rules alone let garbage pile up: a run that is never similar to its neighbours
 * (a small flush between full ones, as every recovery after a crash leaves) splits the
 * stack, and the forced merges at {@code maxRuns} only ever take the newest runs, so the
 * older runs, with every overwritten version in them, are never merged again (issue 9:
 * 87 MB of components for 11.6 MB of data after 60 crash cycles). So, first of all and as
 * RocksDB's universal compaction does with {@code max_size_amplification_percent}: when
 * the runs above the oldest hold more than {@code maxSizeAmplification} times the bytes of
 * the oldest run, all runs are merged into one. With constant live data the oldest run
 * then holds it all, and the tree stays within about {@code 1 + maxSizeAmplification}
 * times the live data; a growing tree is fully merged each time it grows by that factor.
 */
final class SizeTieredPolicy implements MergePolicy {
    private final int fanout;
    private final double sizeRatio;
    private final int maxRuns;
    private final double maxSizeAmplification;

    SizeTieredPolicy(int fanout, double sizeRatio, int maxRuns, double maxSizeAmplification) {
        this.fanout = fanout;
        this.sizeRatio = sizeRatio;
        this.maxRuns = Math.max(maxRuns, fanout);
        this.maxSizeAmplification = maxSizeAmplification;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        List<RunView> runs = tree.level(0).runs();
        if (runs.size() >= 2 && idle(runs)) {
            long oldest = runs.get(runs.size() - 1).sizeBytes();
            long newer = 0;
            for (int i = 0; i < runs.size() - 1; i++) {
                newer += runs.get(i).sizeBytes();
            }
            if (newer > maxSizeAmplification * oldest) {
                return List.of(task(runs, String.format(java.util.Locale.ROOT,
                        "size-tiered: %d runs above the oldest hold %.2f times its bytes", runs.size() - 1,
                        (double) newer / Math.max(1, oldest))));
            }
        }
        for (int start = 0; start + fanout <= runs.size(); start++) {
            List<RunView> window = runs.subList(start, start + fanout);
            if (idle(window) && similar(window)) {
                return List.of(task(window, "size-tiered: " + fanout + " similar runs from position " + start));
            }
        }
        if (runs.size() >= maxRuns) {
            for (int start = 0; start + fanout <= runs.size(); start++) {
                List<RunView> window = runs.subList(start, start + fanout);
                if (idle(window)) {
                    return List.of(task(window, "size-tiered: " + runs.size() + " runs reached max-runs"));
                }
            }
        }
        return List.of();
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        LevelView level = tree.level(0);
        return level.runs().size() >= maxRuns ? WriteAdmission.STOP : WriteAdmission.GO;
    }

    private static boolean idle(List<RunView> window) {
        for (RunView r : window) {
            if (r.busy() || r.components().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private boolean similar(List<RunView> window) {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (RunView r : window) {
            min = Math.min(min, r.sizeBytes());
            max = Math.max(max, r.sizeBytes());
        }
        return max <= sizeRatio * Math.max(1, min);
    }

    private static MergeTask task(List<RunView> window, String reason) {
        List<ComponentId> inputs = new ArrayList<>();
        for (RunView r : window) {
            for (ComponentView c : r.components()) {
                inputs.add(c.id());
            }
        }
        ComponentId oldest = window.get(window.size() - 1).components().get(0).id();
        return MergeTask.of(inputs, Placement.intoRunOf(0, oldest), reason);
    }
}
