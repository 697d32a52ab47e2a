package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.sim.KeyRangeSimulator;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * Conformance in the key-range-aware simulator: every registered policy runs there (the
 * tree checks every change: inputs exist, runs stay sorted and disjoint, overlapping data is
 * ordered newest first); and trace
 * checks of the families' rules (FAMILIES.md SP1's dividing-merge cut, VL1's level-0
 * discipline, outputs cut as their OutputSpec says).
 */
@SlowTest
class KeyRangeSimulatorTest {
    private static final double ENTRY_BYTES = 128;
    private static final long FLUSH_BYTES = 64 << 10;
    /** Flushes per policy and workload: 100 in the fast lane, 1,000 in the slow lane (KeyRangeSimulatorTest at multiplier 3). */
    private static final int FLUSHES = TestScale.scaled(100);

    /**
     * One policy of each family in the fast lane ({@link RegisteredPolicies#REPRESENTATIVES}),
     * every registered policy in the slow lane (KeyRangeSimulatorTest at multiplier 3).
     */
    static java.util.stream.Stream<String> policies() {
        return RegisteredPolicies.representativesInTheFastLane();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void everyPolicyRunsOnKeyRanges(String name) {
        MergePolicyFactory f = MergePolicies.find(name);
        PolicyParameters params = PolicyParameters.resolve(name, f.parameters(), Map.of());
        int bound = RegisteredPolicies.componentBound(f);
        for (KeyRangeSimulator.Workload w : List.of(KeyRangeSimulator.Workload.inserts(),
                KeyRangeSimulator.Workload.updates(20_000))) {
            KeyRangeSimulator.Result r;
            long start = System.nanoTime();
            try {
                r = new KeyRangeSimulator(name, params, f.create(params), w, ENTRY_BYTES, FLUSH_BYTES).run(FLUSHES);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(name + " (" + w + ") failed in the key-range simulator: " + e.getMessage(), e);
            }
            System.out.printf("%s %s: %.0f ms, %s%n", name, w, (System.nanoTime() - start) / 1e6, r);
            assertEquals(FLUSHES, r.flushes());
            assertTrue(r.waImpl() >= 1.0, name + ": WA " + r.waImpl());
            assertTrue(r.spaceAmplification() >= 0.99, name + ": SA " + r.spaceAmplification() + " " + r.tree());
            if (bound > 0) {
                assertTrue(r.maxComponents() <= bound, name + " reached " + r.maxComponents() + " components");
            }
        }
    }

    @Test
    void spookyDividingMergesAreCutAtLevelLFileStarts() {
        List<String> problems = new ArrayList<>();
        int[] dividing = {0};
        KeyRangeSimulator sim = KeyRangeSimulator.of("spooky", Map.of(), KeyRangeSimulator.Workload.inserts(),
                ENTRY_BYTES, FLUSH_BYTES).onMerge(e -> {
                    if (!e.task().reason().contains("dividing merge")) {
                        return;
                    }
                    dividing[0]++;
                    int alignLevel = e.task().output().alignToLevel();
                    List<ComponentView> levelL = levelFiles(e.before(), alignLevel);
                    for (ComponentView out : e.outputs()) {
                        long overlapped = levelL.stream().filter(l -> overlaps(l, out)).count();
                        if (overlapped > 1) {
                            problems.add("flush " + e.flush() + ": output " + out + " overlaps " + overlapped
                                    + " level-" + alignLevel + " files");
                        }
                    }
                });
        sim.run(3000);
        assertTrue(dividing[0] > 0, "no dividing merge happened in 3000 flushes");
        assertTrue(problems.isEmpty(), problems.size() + " outputs span several level-L files, e.g. "
                + problems.subList(0, Math.min(3, problems.size())));
    }

    @Test
    void vlsmLevelZeroDiscipline() {
        // VL1: every merge out of level 0 has exactly one level-0 input, the oldest level-0 table.
        List<String> problems = new ArrayList<>();
        int[] fromL0 = {0};
        KeyRangeSimulator.of("vlsm", Map.of(), KeyRangeSimulator.Workload.inserts(), ENTRY_BYTES, FLUSH_BYTES)
                .onMerge(e -> {
                    List<ComponentView> l0Inputs = new ArrayList<>();
                    for (int i = 0; i < e.inputs().size(); i++) {
                        if (e.inputLevels().get(i) == 0) {
                            l0Inputs.add(e.inputs().get(i));
                        }
                    }
                    if (l0Inputs.isEmpty()) {
                        return;
                    }
                    fromL0[0]++;
                    List<RunView> runs = e.before().level(0).runs();
                    ComponentView oldest = runs.get(runs.size() - 1).components().get(0);
                    if (l0Inputs.size() != 1 || !l0Inputs.get(0).id().equals(oldest.id())) {
                        problems.add("flush " + e.flush() + ": level-0 inputs " + l0Inputs + ", oldest " + oldest);
                    }
                }).run(2000);
        assertTrue(fromL0[0] > 0, "nothing left level 0");
        assertTrue(problems.isEmpty(), problems.size() + " level-0 merges broke VL1, e.g. "
                + problems.subList(0, Math.min(3, problems.size())));
    }

    @Test
    void outputsAreCutAsTheirSpecSays() {
        // Every policy whose tasks bound the file size gets files within the bound (one cut step of slack).
        int checked = 0;
        List<String> checkedNames = new ArrayList<>();
        // 70 flushes in the fast lane: every policy that cuts by size has cut tasks by then (the
        // same 14 as over 200 flushes, the size before the lanes, which the slow lane passes).
        int flushes = TestScale.scaled(70);
        for (String name : RegisteredPolicies.names().toList()) {
            List<String> problems = new ArrayList<>();
            int[] cutTasks = {0};
            KeyRangeSimulator.of(name, Map.of(), KeyRangeSimulator.Workload.inserts(), ENTRY_BYTES, FLUSH_BYTES)
                    .onMerge(e -> {
                        long max = e.task().output().maxFileBytes();
                        if (max == Long.MAX_VALUE || e.task().mode() == MergeMode.MOVE) {
                            return;
                        }
                        if (e.task().mode() == MergeMode.REUSE_BLOCKS) {
                            // Children merged in place grow (up to the selective maximum file size,
                            // then they are rewritten); only rewritten children are cut.
                            long grown = e.task().selective().maxFileBytes();
                            for (ComponentView out : e.outputs()) {
                                if (out.sizeBytes() > 2 * grown) {
                                    problems.add(out.sizeBytes() + " > 2 x " + grown + " (merged in place)");
                                }
                            }
                            return;
                        }
                        cutTasks[0]++;
                        for (ComponentView out : e.outputs()) {
                            if (out.sizeBytes() > max + max / 128 + ENTRY_BYTES) {
                                problems.add(out.sizeBytes() + " > " + max);
                            }
                        }
                    }).run(flushes);
            if (cutTasks[0] > 0) {
                checked++;
                checkedNames.add(name + ":" + cutTasks[0]);
                assertTrue(problems.isEmpty(), name + ": outputs over their maximum: " + problems.subList(0,
                        Math.min(3, problems.size())));
            }
        }
        System.out.println("outputsAreCutAsTheirSpecSays over " + flushes + " flushes, tasks cut by size: " + checkedNames);
        assertTrue(checked >= 3, "only " + checked + " policies cut their outputs by size");
    }

    @Test
    void leveledPresetsDoNotMoveFilesBackUp() {
        // Regression: the design-space stability closure compared sequence ranges only, so a file moved
        // down was pulled back into level 0's run by the next merge there and moved down again: lo1 made
        // 141,184 moves in 400 flushes and wrote 200x its input. The engine's positional rule ends that.
        // At the size of the report, in both lanes: over fewer flushes a leveled tree is still filling
        // level 1 and its write amplification is not yet the steady state the bound is for. The
        // fast lane runs lo1, the preset of the report; the slow lane all four.
        int flushes = 400;
        List<String> presets = TestScale.multiplier() > 1 ? List.of("lo1", "lo2", "rr", "design-space") : List.of("lo1");
        for (String name : presets) {
            KeyRangeSimulator.Result r = KeyRangeSimulator.of(name, Map.of(), KeyRangeSimulator.Workload.inserts(),
                    ENTRY_BYTES, FLUSH_BYTES).run(flushes);
            assertTrue(r.moves() < flushes, name + " moved " + r.moves() + " files in " + flushes + " flushes");
            assertTrue(r.waImpl() < 40, name + " wrote " + r.waImpl() + "x its input: " + r);
        }
    }

    @Test
    void movesWriteNothingAndMergeBytesAddUp() {
        KeyRangeSimulator.Result r = KeyRangeSimulator.of("spooky", Map.of(), KeyRangeSimulator.Workload.inserts(),
                ENTRY_BYTES, FLUSH_BYTES).run(2000);
        assertTrue(r.moves() > 0, "spooky adds levels by moving files: " + r);
        long perLevel = Arrays.stream(r.mergeBytesByLevel()).sum();
        double flushed = 2000.0 * FLUSH_BYTES;
        assertEquals(r.waModel(), perLevel / flushed, 0.02, "merge bytes per level add up to WA_model");
        assertEquals(r.waImpl(), r.waModel() + 1, 1e-9);
        // Unique inserts: the tree holds every entry once.
        assertEquals(1.0, r.spaceAmplification(), 0.01);
    }

    private static List<ComponentView> levelFiles(TreeView v, int level) {
        if (level < 0 || level >= v.levels().size()) {
            return List.of();
        }
        List<ComponentView> out = new ArrayList<>();
        for (RunView r : v.level(level).runs()) {
            out.addAll(r.components());
        }
        return out;
    }

    private static boolean overlaps(ComponentView a, ComponentView b) {
        return Arrays.compareUnsigned(a.minKey(), b.maxKey()) <= 0 && Arrays.compareUnsigned(b.minKey(), a.maxKey()) <= 0;
    }
}
