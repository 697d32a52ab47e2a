package dev.strata.lsm.policy.designspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code align-outputs} (issue 33 §3): a rewrite into a leveled level above the last also cuts
 * its output at the next level's file boundaries once a file holds the given fraction of the
 * target size; off (0) by default, and never for the last level (nothing below to align with).
 */
class AlignOutputsTest {
    private static final long MIB = 1 << 20;

    private static ComponentView file(long n, int min, int max) {
        return ComponentView.builder(new ComponentId(n, 0)).sizeBytes(MIB).physicalBytes(MIB).entries(1000, 0)
                .userBytes(MIB).keyRange(new byte[] {(byte) min}, new byte[] {(byte) max}).seqnos(n, n)
                .creation(n, 0).build();
    }

    /** Level 1 saturated (6 MiB of a static 4 MiB: T = 2, 1 MiB files), every file overlapping level 2; level 3 below. */
    private static TreeView tree(boolean levelThree) {
        List<ComponentView> l1 = new ArrayList<>();
        for (int n = 1; n <= 6; n++) {
            l1.add(file(n, n * 16, n * 16 + 8));
        }
        List<LevelView> levels = new ArrayList<>(List.of(new LevelView(0, List.of()),
                new LevelView(1, List.of(new RunView(l1))),
                new LevelView(2, List.of(new RunView(List.of(file(10, 0, 50), file(11, 51, 120)))))));
        if (levelThree) {
            levels.add(new LevelView(3, List.of(new RunView(List.of(file(20, 0, 60), file(21, 61, 126))))));
        }
        return new TreeView(levels, 0, null, null);
    }

    private static MergeTask intoLevelTwo(String align, boolean levelThree) {
        List<MergeTask> tasks = MergePolicies.create("lo1", Map.of("target-file-bytes", "1MiB", "size-ratio", "2",
                "dynamic-level-bytes", "false", "align-outputs", align)).pickMerges(tree(levelThree));
        MergeTask task = tasks.stream().filter(t -> t.placement().level() == 2).findFirst().orElseThrow(
                () -> new AssertionError("no merge into level 2: " + tasks));
        assertEquals(MergeMode.REWRITE, task.mode(), task.toString());
        return task;
    }

    @Test
    void aRewriteIntoAMiddleLevelAlignsWithTheLevelBelowOnceAFileHoldsTheFraction() {
        OutputSpec spec = intoLevelTwo("0.5", true).output();
        assertEquals(3, spec.alignToLevel(), spec.toString());
        assertEquals(MIB / 2, spec.minFileBytes(), spec.toString());
        assertEquals(MIB, spec.maxFileBytes(), spec.toString());
    }

    @Test
    void offByDefaultAndNeverIntoTheLastLevel() {
        OutputSpec off = intoLevelTwo("0", true).output();
        assertEquals(OutputSpec.NO_LEVEL, off.alignToLevel(), off.toString());
        assertEquals(0, off.minFileBytes());
        assertEquals("0", DesignSpacePresets.values("lo1").get(DesignSpacePresets.ALIGN_OUTPUTS));
        OutputSpec last = intoLevelTwo("0.5", false).output();
        assertEquals(OutputSpec.NO_LEVEL, last.alignToLevel(), last.toString());
    }

    @Test
    void aFractionOutsideZeroToOneIsRefusedNamingTheParameter() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DesignSpacePresets.config("lo1", Map.of("align-outputs", "1.5")));
        assertTrue(e.getMessage().contains("align-outputs"), e.getMessage());
    }
}
