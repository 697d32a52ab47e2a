package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The design-space policy's slowdown band (issue 36, the zstd-bottommost stall): while a merge
 * runs, writers are slowed down from {@code level0-slowdown-runs} level-0 runs, more the
 * nearer level 0 is to {@code level0-stop-runs}, and stopped only there.
 */
class DesignSpaceSlowdownTest {

    /** A tree whose level 0 holds {@code runs} runs of one table each, with a merge running or not. */
    private static TreeView tree(int runs, boolean merging) {
        List<RunView> l0 = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long id = 100 + i;
            l0.add(new RunView(List.of(ComponentView.builder(new ComponentId(id, 0)).sizeBytes(100).entries(100, 0)
                    .userBytes(100).keyRange("a".getBytes(StandardCharsets.UTF_8), "z".getBytes(StandardCharsets.UTF_8))
                    .seqnos(10L * (runs - i) + 1, 10L * (runs - i) + 10).creation(id, 0).build())));
        }
        LevelView l1 = new LevelView(1, List.of(new RunView(List.of(ComponentView.builder(new ComponentId(1, 0))
                .sizeBytes(100_000).entries(100_000, 0).userBytes(100_000)
                .keyRange("a".getBytes(StandardCharsets.UTF_8), "z".getBytes(StandardCharsets.UTF_8))
                .seqnos(0, 0).creation(1, 0).busy(merging).build()))));
        List<RunningMerge> running = merging ? List.of(new RunningMerge(List.of(new ComponentId(1, 0)),
                Placement.newRun(1), MergeMode.REWRITE, 0, "")) : List.of();
        return new TreeView(List.of(new LevelView(0, l0), l1), 0, new byte[0], null, running, 0,
                new StoreSettings(100));
    }

    @Test
    void oneLevelingSlowsDownFromElevenRunsAndStopsAtTwentyByDefault() {
        DesignSpaceConfig cfg = DesignSpacePresets.config("one-leveling", Map.of());
        assertEquals(0, cfg.level0SlowdownRuns(), "the default is derived");
        assertEquals(11, cfg.effectiveLevel0SlowdownRuns(), "20 x 20/36 = 11.1");
        MergePolicy p = MergePolicies.create("one-leveling", Map.of());
        for (int runs = 0; runs <= 25; runs++) {
            WriteAdmission expected = runs >= 20 ? WriteAdmission.STOP
                    : runs >= 11 ? WriteAdmission.SLOW_DOWN : WriteAdmission.GO;
            assertEquals(expected, p.admission(tree(runs, true)), runs + " runs, a merge running");
            assertEquals(WriteAdmission.GO, p.admission(tree(runs, false)), runs + " runs, no merge running");
        }
    }

    @Test
    void theDepthGoesFromZeroAtTheSlowdownToOneAtTheStop() {
        MergePolicy p = MergePolicies.create("one-leveling", Map.of("level0-slowdown-runs", "12",
                "level0-stop-runs", "20"));
        assertEquals(0.0, p.slowdownDepth(tree(12, true)), 1e-12);
        assertEquals(0.5, p.slowdownDepth(tree(16, true)), 1e-12);
        assertEquals(7 / 8.0, p.slowdownDepth(tree(19, true)), 1e-12);
        assertEquals(1.0, p.slowdownDepth(tree(20, true)), 1e-12);
        assertEquals(0.0, p.slowdownDepth(tree(3, true)), 1e-12, "below the band: clamped");
        assertEquals(1.0, p.slowdownDepth(tree(40, true)), 1e-12, "above the stop: clamped");
        double previous = -1;
        for (int runs = 12; runs <= 20; runs++) {
            double d = p.slowdownDepth(tree(runs, true));
            assertTrue(d > previous, "rises with every run: " + runs);
            previous = d;
        }
    }

    @Test
    void theBandAppliesToTheLeveledPresetsAndSlowdownEqualToStopTurnsItOff() {
        for (String preset : List.of("lo1", "lo2", "rr", "cold", "old", "tsd", "tsa", "blockdb", "design-space")) {
            MergePolicy p = MergePolicies.create(preset, Map.of());
            assertEquals(WriteAdmission.GO, p.admission(tree(10, true)), preset);
            assertEquals(WriteAdmission.SLOW_DOWN, p.admission(tree(11, true)), preset);
            assertEquals(WriteAdmission.STOP, p.admission(tree(20, true)), preset);
        }
        // full stops whenever a merge runs (seed 003), band or not.
        assertEquals(WriteAdmission.STOP, MergePolicies.create("full", Map.of()).admission(tree(1, true)));
        MergePolicy off = MergePolicies.create("one-leveling", Map.of("level0-slowdown-runs", "20"));
        assertEquals(WriteAdmission.GO, off.admission(tree(19, true)));
        assertEquals(WriteAdmission.STOP, off.admission(tree(20, true)));
    }

    @Test
    void theDerivedThresholdStaysBetweenTheRunTriggerAndTheStop() {
        // A low stop (an existing configuration with level0-stop-runs=5) stays valid: the derived
        // slowdown (5 x 20/36 = 2.8) is raised to level1-run-trigger (4).
        assertEquals(4, DesignSpacePresets.config("one-leveling", Map.of("level0-stop-runs", "5"))
                .effectiveLevel0SlowdownRuns());
        assertEquals(4, DesignSpacePresets.config("one-leveling", Map.of("level0-stop-runs", "4"))
                .effectiveLevel0SlowdownRuns());
        assertEquals(111, DesignSpacePresets.config("one-leveling", Map.of("level0-stop-runs", "200"))
                .effectiveLevel0SlowdownRuns());
        assertEquals(36, DesignSpacePresets.config("lo1", Map.of("level0-stop-runs", "36",
                "level0-slowdown-runs", "36")).effectiveLevel0SlowdownRuns());
    }

    @Test
    void outOfRangeValuesAreRefused() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> DesignSpacePresets.config("one-leveling", Map.of("level0-slowdown-runs", "-1")));
        assertTrue(negative.getMessage().contains("level0-slowdown-runs"), negative.getMessage());
    }
}
