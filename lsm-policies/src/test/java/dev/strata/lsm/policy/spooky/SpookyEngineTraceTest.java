package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policies.RecordingPolicy;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import static dev.strata.lsm.policy.spooky.SpookyTraceTest.bytes;
import static dev.strata.lsm.policy.spooky.SpookyTraceTest.ids;
import static dev.strata.lsm.policy.spooky.SpookyTraceTest.largest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SP1 and SP5 on the engine: {@code spooky} runs inside a store (merges on background
 * threads, decisions on views with running merges) under unique uniform inserts, and every
 * decision it makes is checked against the rule on the view it was made on, with the pass
 * state the policy held when it began deciding:
 * <ul>
 *   <li>a merge out of level 0 goes to the smallest q &lt; X with N_0 + … + N_q &lt; C_q
 *       (C_q = N_L / T^(L−q), N_L from the pass's start while one runs), else into X, and
 *       takes exactly the files of levels 0..q; into X below L its output is cut at level
 *       L's files;</li>
 *   <li>no merge into X is decided together with a partitioned merge or while a pass runs;
 *       at most one partitioned merge per decision;</li>
 *   <li>a pass begins only when N_X ≥ C_X, and its merges go to the pass's target;</li>
 *   <li>on every view, each file of levels X..L−1 overlaps at most one level-L file;</li>
 *   <li>no merge into X is decided while a level from 1 down is busy (a move of level L would
 *       change the files its output is cut at);</li>
 *   <li>an intra-L0 merge comes only while a full preemptive merge runs (into q &lt; X; never
 *       beside a partitioned or dividing merge alone), takes the newest α or more idle
 *       level-0 files of about equal size and stays in level 0.</li>
 * </ul>
 */
class SpookyEngineTraceTest {
    private static final int ALPHA = 4;

    /**
     * The size ratio T: 3 in the fast lane, where a quarter of the flushes T = 5 needs reach L = 4
     * with every kind of merge (T = 3 on 60,000 entries: L = 4 but 1 full preemptive merge; T = 4
     * on 120,000: L = 3); the slow lane ({@link SpookyEngineTraceSlowTest}) runs T = 5, the
     * configuration of {@link SpookyTraceTest}.
     */
    int sizeRatio() {
        return FAST_T;
    }

    /**
     * The 128-byte entries written (512 fill a 64 KiB memtable): 120,000 (~240 flushes, L = 4, 24
     * full preemptive merges in a run under load) at T = 3 in the fast lane; the slow lane writes
     * {@code TestScale.scaled(350_000)} at T = 5.
     */
    long entries() {
        return TestScale.scaled(120_000);
    }

    private static final int FAST_T = 3;

    @Test
    void everyDecisionInTheEngineFollowsTheRule(@TempDir Path dir) throws Exception {
        int t = sizeRatio();
        RecordingPolicy<PassState> spooky = new RecordingPolicy<>(
                MergePolicies.create("spooky", Map.of("size-ratio", Integer.toString(t))), SpookyEngineTraceTest::passState);
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).maxImmutableMemtables(1)
                .blockCacheBytes(1 << 20).mergePolicy(spooky).build();
        assertEquals(0, RecordingPolicy.fillRandom(dir, config, 7, entries()));
        List<String> problems = new ArrayList<>();
        int[] kinds = new int[4];
        int maxLargest = 0;
        for (RecordingPolicy.Decision<PassState> d : spooky.decisions()) {
            maxLargest = Math.max(maxLargest, check(d, t, problems, kinds));
        }
        System.out.printf("spooky on the engine, T = %d, %d entries: %d decisions, %d full preemptive, %d into X, "
                + "%d partitioned, %d intra-L0 merges, L up to %d, %d violations%n", t, entries(),
                spooky.decisions().size(), kinds[0], kinds[1], kinds[2], kinds[3], maxLargest, problems.size());
        assertTrue(problems.isEmpty(), problems.size() + " violations, first: "
                + problems.subList(0, Math.min(5, problems.size())));
        assertTrue(maxLargest >= 4 && kinds[0] > 5 && kinds[1] > 5 && kinds[2] > 5,
                "every kind of merge happened: " + java.util.Arrays.toString(kinds) + ", L " + maxLargest);
    }

    /** The policy's pass state when a decision began. */
    record PassState(boolean active, int target, long largestBytes) {
    }

    /** Reads the pass state {@code policy} (a {@link SpookyPolicy}) holds as it decides on {@code view}. */
    private static PassState passState(MergePolicy policy, TreeView view) {
        SpookyState state;
        try {
            Field f = SpookyPolicy.class.getDeclaredField("state");
            f.setAccessible(true);
            state = (SpookyState) f.get(policy);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("SpookyPolicy's state field", e);
        }
        // The policy adopts the view's persisted state first; read it as the policy will.
        state.load(view.policyState());
        return new PassState(state.passActive, state.passTarget, state.passLargestBytes);
    }

    /** DCA's capacity C_level = basis / T^(largest − level), at least 1. */
    private static long capacity(long basis, int largest, int level, int t) {
        return Math.max(1, (long) (basis * Math.pow(t, level - largest)));
    }

    private static int check(RecordingPolicy.Decision<PassState> d, int t,
                             List<String> problems, int[] kinds) {
        TreeView v = d.view();
        int largest = largest(v);
        int x = Math.max(1, largest - 2);
        String where = "view after flush " + v.flushCounter() + ", state " + d.before();
        SpookyTraceTest.withinOneLevelLFile(v, largest, x, where, problems);
        // A pass whose levels X..z-1 are empty and idle ends as the decision begins.
        boolean passRuns = d.before().active() && !passFinished(v, x, Math.min(d.before().target(), largest));
        long basis = passRuns ? d.before().largestBytes() : bytes(v, largest);
        boolean partitionedHere = false;
        boolean intoX = false;
        for (MergeTask task : d.tasks()) {
            if (task.mode() == MergeMode.MOVE) {
                continue; // a level added or removed
            }
            boolean fromLevel0 = task.inputs().stream().anyMatch(id -> level(v, id) == 0);
            if (fromLevel0 && task.placement().level() == 0) {
                kinds[3]++;
                checkIntraLevel0(v, task, x, largest, where, problems);
                continue;
            }
            if (fromLevel0) {
                int q = x;
                long sum = bytes(v, 0);
                for (int level = 1; level < x && basis > 0; level++) {
                    sum += bytes(v, level);
                    if (sum < capacity(basis, largest, level, t)) {
                        q = level;
                        break;
                    }
                }
                if (basis == 0) {
                    continue; // nothing below level 0 yet: no capacities to check against
                }
                if (task.placement().level() != q) {
                    problems.add("SP1 merge out of level 0 into " + task.placement().level() + ", rule says " + q
                            + ": " + where + " " + task);
                }
                if (!new HashSet<>(task.inputs()).equals(ids(v, 0, q))) {
                    problems.add("SP1 merge out of level 0 does not take exactly levels 0.." + q + ": " + where);
                }
                if (q < x) {
                    kinds[0]++;
                } else {
                    kinds[1]++;
                    intoX = true;
                    if (passRuns) {
                        problems.add("SP1 merge into X while a pass runs: " + where);
                    }
                    if (busyBelow(v, 1)) {
                        problems.add("SP5 merge into X while levels X..L are busy (a move of L would change "
                                + "the files its cut follows): " + where);
                    }
                    if (x < largest && task.output().alignToLevel() != largest) {
                        problems.add("SP1 merge into X not cut at level-" + largest + " files: " + where);
                    }
                }
                continue;
            }
            kinds[2]++;
            if (partitionedHere) {
                problems.add("SP5 two partitioned merges in one decision: " + where);
            }
            partitionedHere = true;
            int target;
            if (!passRuns) {
                if (bytes(v, x) < capacity(bytes(v, largest), largest, x, t)) {
                    problems.add("SP1 a pass began with N_X < C_X: " + where);
                }
                target = largest;
                long sum = bytes(v, x);
                for (int z = x + 1; z < largest; z++) {
                    sum += bytes(v, z);
                    if (sum < capacity(bytes(v, largest), largest, z, t)) {
                        target = z;
                        break;
                    }
                }
            } else {
                target = Math.min(d.before().target(), largest);
            }
            if (task.placement().level() != target) {
                problems.add("SP1 partitioned merge into " + task.placement().level() + ", pass target " + target
                        + ": " + where);
            }
        }
        if (partitionedHere && intoX) {
            problems.add("SP1 a merge into X decided with a partitioned merge: " + where);
        }
        return largest;
    }

    /**
     * The intra-L0 merge (FAMILIES.md §1.7, seed 000 §5): only while a full preemptive merge
     * runs (a running rewrite into a level in 1..X−1, or into X = L), it takes the newest
     * level-0 files, at least α of them, idle, of sizes within a factor 2, and puts the output
     * in the newest one's place.
     */
    private static void checkIntraLevel0(TreeView v, MergeTask task, int x, int largest, String where,
                                         List<String> problems) {
        List<RunView> runs = v.level(0).runs();
        boolean fullPreemptive = v.runningMerges().stream().anyMatch(m -> m.mode() != MergeMode.MOVE
                && m.targetLevel() >= 1 && (m.targetLevel() < x || (m.targetLevel() == x && x >= largest)));
        if (!fullPreemptive) {
            problems.add("intra-L0 merge while no full preemptive merge runs (running: " + v.runningMerges() + "): "
                    + where);
        }
        int n = task.inputs().size();
        if (n < ALPHA || n > runs.size()) {
            problems.add("intra-L0 merge of " + n + " files: " + where);
            return;
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < n; i++) {
            RunView r = runs.get(i);
            ComponentView c = r.components().get(0);
            if (r.busy() || r.components().size() != 1 || !task.inputs().contains(c.id())) {
                problems.add("intra-L0 merge does not take the newest idle level-0 files: " + where);
                return;
            }
            min = Math.min(min, c.sizeBytes());
            max = Math.max(max, c.sizeBytes());
        }
        if (max > 2 * min) {
            problems.add("intra-L0 merge of unequal files (" + min + ".." + max + "): " + where);
        }
        if (task.placement().kind() != dev.strata.lsm.policy.Placement.Kind.INTO_RUN_OF
                || !task.placement().anchor().equals(runs.get(0).components().get(0).id())) {
            problems.add("intra-L0 output not in the newest input's place: " + where);
        }
    }

    /** Whether a component of level {@code from} or deeper is being merged or moved. */
    private static boolean busyBelow(TreeView v, int from) {
        for (LevelView l : v.levels()) {
            if (l.index() >= from && l.runs().stream().anyMatch(RunView::busy)) {
                return true;
            }
        }
        return false;
    }

    private static boolean passFinished(TreeView v, int x, int z) {
        for (int level = x; level <= Math.max(x, z); level++) {
            for (RunView r : v.level(level).runs()) {
                if (r.busy()) {
                    return false;
                }
            }
        }
        for (int level = x; level < z; level++) {
            if (v.level(level).componentCount() > 0) {
                return false;
            }
        }
        return true;
    }

    private static int level(TreeView v, ComponentId id) {
        for (LevelView l : v.levels()) {
            for (RunView r : l.runs()) {
                for (ComponentView c : r.components()) {
                    if (c.id().equals(id)) {
                        return l.index();
                    }
                }
            }
        }
        return -1;
    }
}
