package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The suite's own checker: hand cases and a pairwise reference on random trees. */
class TreeInvariantsTest {
    private long nextId = 1;

    private ComponentView c(int min, int max, long minSeq, long maxSeq) {
        return ComponentView.builder(new ComponentId(nextId++, 0)).sizeBytes(1).entries(1, 0).userBytes(1)
                .keyRange(new byte[] {(byte) min}, new byte[] {(byte) max}).seqnos(minSeq, maxSeq).creation(nextId, 0)
                .build();
    }

    private static TreeView tree(List<List<List<ComponentView>>> levels) {
        List<LevelView> lv = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            lv.add(new LevelView(i, levels.get(i).stream().map(RunView::new).toList()));
        }
        return new TreeView(lv, 0, null, null);
    }

    @Test
    void acceptsAStableTreeAndNamesABrokenOne() {
        ComponentView newest = c(0, 50, 20, 29);
        ComponentView left = c(0, 9, 0, 9);
        ComponentView right = c(60, 90, 10, 19);   // newer seqnos, but overlaps nothing newer
        assertNull(TreeInvariants.checkStructure(tree(List.of(List.of(List.of(newest)),
                List.of(List.of(left, right))))));
        ComponentView stale = c(40, 70, 5, 8);     // above `right`, which holds newer data
        String problem = TreeInvariants.checkStructure(tree(List.of(List.of(List.of(stale)),
                List.of(List.of(left, right)))));
        assertNotNull(problem);
        assertTrue(problem.contains("stability broken"), problem);
        String unsorted = TreeInvariants.checkStructure(tree(List.of(List.of(List.of(right, left)))));
        assertTrue(unsorted != null && unsorted.contains("not sorted"), unsorted);
    }

    @Test
    void agreesWithAPairwiseCheckOnRandomTrees() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        int broken = 0;
        for (int round = 0; round < 2000; round++) {
            List<List<List<ComponentView>>> levels = new ArrayList<>();
            int nLevels = 1 + rnd.nextInt(3);
            for (int l = 0; l < nLevels; l++) {
                List<List<ComponentView>> runs = new ArrayList<>();
                for (int r = 0, n = 1 + rnd.nextInt(3); r < n; r++) {
                    List<ComponentView> run = new ArrayList<>();
                    int key = rnd.nextInt(20);
                    while (key < 120 && run.size() < 4) {
                        int end = key + rnd.nextInt(30);
                        long s = rnd.nextInt(100);
                        run.add(c(key, Math.min(end, 127), s, s + rnd.nextInt(10)));
                        key = end + 1 + rnd.nextInt(20);
                    }
                    runs.add(run);
                }
                levels.add(runs);
            }
            TreeView t = tree(levels);
            boolean pairwiseStable = pairwiseStable(levels);
            broken += pairwiseStable ? 0 : 1;
            assertEquals(pairwiseStable, TreeInvariants.checkStructure(t) == null, "seed " + seed + " round " + round
                    + ": " + t);
        }
        assertTrue(broken > 100 && broken < 1900, "random trees exercise both outcomes: " + broken);
    }

    private static boolean pairwiseStable(List<List<List<ComponentView>>> levels) {
        List<List<ComponentView>> runs = new ArrayList<>();
        levels.forEach(runs::addAll);
        for (int i = 0; i < runs.size(); i++) {
            for (int j = i + 1; j < runs.size(); j++) {
                for (ComponentView a : runs.get(i)) {
                    for (ComponentView b : runs.get(j)) {
                        if (a.overlaps(b) && a.minSeqno() <= b.maxSeqno()) {
                            return false;
                        }
                    }
                }
            }
        }
        return true;
    }
}
