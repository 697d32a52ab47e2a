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
 */
final class SizeTieredPolicy implements MergePolicy {
    private final int fanout;
    private final double sizeRatio;
    private final int maxRuns;

    SizeTieredPolicy(int fanout, double sizeRatio, int maxRuns) {
        this.fanout = fanout;
        this.sizeRatio = sizeRatio;
        this.maxRuns = Math.max(maxRuns, fanout);
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        List<RunView> runs = tree.level(0).runs();
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
