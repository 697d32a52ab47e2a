package dev.strata.lsm.policy.basic;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Size-tiered's decisions on hand-made stacks. */
class SizeTieredPolicyTest {
    private static final SizeTieredPolicy DEFAULTS = new SizeTieredPolicy(4, 2.0, 24, 2.0);

    /** A stack of one-component runs of {@code sizes}, newest first; file numbers count from 1 upwards, oldest last. */
    private static TreeView stack(boolean lastBusy, long... sizes) {
        List<RunView> runs = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            boolean busy = lastBusy && i == sizes.length - 1;
            runs.add(new RunView(List.of(ComponentView.builder(new ComponentId(i + 1, 0)).sizeBytes(sizes[i])
                    .entries(10, 0).userBytes(10).keyRange(new byte[] {0}, new byte[] {9}).seqnos(i, i)
                    .creation(sizes.length - i, 0).busy(busy).build())));
        }
        return new TreeView(List.of(new LevelView(0, runs)), 0, new byte[0], null);
    }

    @Test
    void splitStackIsMergedWhenNewerRunsOutgrowTheOldest() {
        // Issue 9's pile: full flushes split by small recovery flushes, never similar in a window of 4.
        long[] sizes = {768, 100, 768, 760, 120, 772, 1700, 90, 2240};
        List<MergeTask> tasks = DEFAULTS.pickMerges(stack(false, sizes));
        assertEquals(1, tasks.size(), tasks.toString());
        MergeTask t = tasks.get(0);
        assertEquals(sizes.length, t.inputs().size(), t.toString());
        assertEquals(Placement.intoRunOf(0, new ComponentId(sizes.length, 0)), t.placement());
        assertTrue(t.reason().contains("above the oldest"), t.reason());
    }

    @Test
    void newerRunsWithinTheBoundAreLeftToTheSizeRules() {
        // 768 + 100 + 768 + 760 = 2396 <= 2 x 2240: no full merge, no similar window of 4.
        assertEquals(List.of(), DEFAULTS.pickMerges(stack(false, 768, 100, 768, 760, 2240)));
    }

    @Test
    void noFullMergeWhileARunIsBusy() {
        List<MergeTask> tasks = DEFAULTS.pickMerges(stack(true, 768, 100, 768, 760, 120, 772, 1700, 90, 2240));
        assertTrue(tasks.stream().noneMatch(t -> t.inputs().size() == 9), tasks.toString());
    }
}
