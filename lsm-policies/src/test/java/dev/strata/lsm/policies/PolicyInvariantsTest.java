package dev.strata.lsm.policies;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariants of every policy under random flush lengths: the depth bound is never
 * exceeded, every merge keeps the stability invariant and names existing components (the
 * simulator checks both on every step and throws otherwise), the simulator's write
 * amplification equals the bytes ratio recomputed independently from the decisions, once
 * the (instant) merges are done writers are never stopped, and no task uses a component
 * that is already being merged. Seeded from the clock; replay with {@code -Dstrata.test.seed=N}.
 */
class PolicyInvariantsTest {
    private static final List<String> BOUNDED = List.of("constant", "bigtable", "exploring", "minlatency", "binomial");

    private static long seed(String test) {
        long seed = TestSeed.orRandom();
        System.out.println(test + " seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        return seed;
    }

    /**
     * Wraps a policy and recomputes, from its decisions and the sizes in the views it is
     * shown, the bytes the paper's cost model writes: a flush that stays a component writes
     * its length, a flush merged with components writes their sum once, a merge writes the
     * sum of its inputs. At every settled state (the policy wants no more merges) it records
     * the component count and the admission.
     */
    static final class Recorder extends ForwardingMergePolicy {
        double written;
        double flushed;
        int maxSettledCount;
        final List<String> stopped = new ArrayList<>();

        Recorder(MergePolicy inner) {
            super(inner);
        }

        private static long sizeOf(TreeView view, ComponentId id) {
            return view.components().stream().filter(c -> c.id().equals(id)).findFirst()
                    .orElseThrow(() -> new AssertionError("decision names missing component " + id)).sizeBytes();
        }

        @Override
        public FlushPlan planFlush(TreeView tree, ComponentView flushedTable) {
            FlushPlan plan = delegate().planFlush(tree, flushedTable);
            flushed += flushedTable.sizeBytes();
            for (MergeTask t : plan.mergesFirst()) {
                for (ComponentId id : t.inputs()) {
                    written += sizeOf(tree, id);
                }
            }
            written += flushedTable.sizeBytes();
            for (ComponentId id : plan.mergeWith()) {
                written += sizeOf(tree, id);
            }
            return plan;
        }

        @Override
        public List<MergeTask> pickMerges(TreeView tree) {
            List<MergeTask> tasks = delegate().pickMerges(tree);
            for (MergeTask t : tasks) {
                for (ComponentId id : t.inputs()) {
                    written += sizeOf(tree, id);
                }
            }
            if (tasks.isEmpty()) {
                maxSettledCount = Math.max(maxSettledCount, tree.componentCount());
                if (delegate().admission(tree) != WriteAdmission.GO) {
                    stopped.add(tree.toString());
                }
            }
            return tasks;
        }
    }

    private static void runChecked(String policy, Map<String, String> raw, String lengths, long lengthSeed,
                                   long seed, int bound) {
        MergePolicyFactory f = MergePolicies.find(policy);
        PolicyParameters params = PolicyParameters.resolve(policy, f.parameters(), raw);
        Recorder rec = new Recorder(f.create(params));
        SimulationResult r = new Simulator(policy, params, rec, Semantics.MODEL, FlushLengths.parse(lengths, lengthSeed))
                .run(TestScale.scaled(1000), new long[0]); // 10,000 in the slow lane (PolicyInvariantsSlowTest)
        String what = policy + " " + raw + " " + lengths + " (seed " + seed + ")";
        double recomputed = rec.written / rec.flushed;
        assertEquals(recomputed, r.writeAmplification(), 1e-9 * recomputed, "WA from the decisions, " + what);
        assertTrue(r.maxComponentCount() <= bound, what + " reached " + r.maxComponentCount() + " components, bound "
                + bound);
        assertTrue(rec.stopped.isEmpty(), what + " stops writers with no merge to wait for: " + rec.stopped);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"constant", "bigtable", "exploring", "minlatency", "binomial"})
    void boundNeverExceededUnderRandomFlushLengths(String policy) {
        long seed = seed(policy);
        Random rnd = new Random(seed);
        for (int round = 0; round < 12; round++) {
            int k = 2 + rnd.nextInt(7);
            runChecked(policy, Map.of("k", String.valueOf(k)), "random:1:" + (1 + rnd.nextInt(1000)), rnd.nextLong(),
                    seed, k);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"prefix", "concurrent"})
    void unboundedPoliciesStayStableUnderRandomFlushLengths(String policy) {
        long seed = seed(policy);
        Random rnd = new Random(seed);
        for (int round = 0; round < 12; round++) {
            Map<String, String> params;
            int bound;
            if (policy.equals("prefix")) {
                params = Map.of("max-mergable-component-size", String.valueOf(50 + rnd.nextInt(5000)),
                        "max-tolerance-component-count", String.valueOf(2 + rnd.nextInt(8)));
                bound = Integer.MAX_VALUE; // components above the size limit accumulate with the data
            } else {
                bound = 2 + rnd.nextInt(40);
                params = Map.of("min-merge-count", String.valueOf(2 + rnd.nextInt(4)),
                        "max-merge-count", String.valueOf(6 + rnd.nextInt(6)),
                        "max-component-count", String.valueOf(bound));
            }
            runChecked(policy, params, "random:1:" + (1 + rnd.nextInt(1000)), rnd.nextLong(), seed, bound);
        }
    }

    /** A stack of level-0 components, newest first in the view, with the given busy flags. */
    private static TreeView stack(long[] sizesOldestFirst, boolean[] busyOldestFirst, long flushes) {
        List<RunView> runs = new ArrayList<>();
        for (int i = sizesOldestFirst.length - 1; i >= 0; i--) {
            runs.add(new RunView(List.of(ComponentView.builder(new ComponentId(i + 1, 0))
                    .sizeBytes(sizesOldestFirst[i]).entries(1, 0).userBytes(sizesOldestFirst[i])
                    .keyRange(new byte[] {0}, new byte[] {1}).seqnos(10L * i, 10L * i + 9).creation(i, 0)
                    .busy(busyOldestFirst[i]).build())));
        }
        return new TreeView(List.of(new LevelView(0, runs)), flushes, null, null);
    }

    @Test
    void tasksNeverUseBusyComponents() {
        Random rnd = new Random(7);
        for (MergePolicyFactory f : MergePolicies.available()) {
            MergePolicy policy = f.create(PolicyParameters.resolve(f.name(), f.parameters(),
                    f.parameters().stream().anyMatch(p -> p.name().equals("k")) ? Map.of("k", "3") : Map.of()));
            for (int round = 0; round < 500; round++) {
                int n = 1 + rnd.nextInt(40);
                long[] sizes = new long[n];
                boolean[] busy = new boolean[n];
                for (int i = 0; i < n; i++) {
                    sizes[i] = 1 + rnd.nextInt(100);
                    busy[i] = rnd.nextInt(4) == 0;
                }
                TreeView view = stack(sizes, busy, rnd.nextInt(1000));
                Set<ComponentId> busyIds = new HashSet<>();
                for (int i = 0; i < n; i++) {
                    if (busy[i]) {
                        busyIds.add(new ComponentId(i + 1, 0));
                    }
                }
                Set<ComponentId> used = new HashSet<>();
                for (MergeTask t : policy.pickMerges(view)) {
                    for (ComponentId id : t.inputs()) {
                        assertFalse(busyIds.contains(id), f.name() + " merges busy " + id + " in " + view);
                        assertTrue(used.add(id), f.name() + " uses " + id + " in two tasks");
                    }
                }
            }
        }
    }

    @Test
    void everyRegisteredPolicyIsListed() {
        Set<String> names = new HashSet<>(MergePolicies.names());
        for (String p : List.of("constant", "bigtable", "exploring", "minlatency", "binomial", "prefix", "concurrent",
                "no-merge", "size-tiered")) {
            assertTrue(names.contains(p), p + " registered: " + names);
        }
        assertEquals(BOUNDED.size(), BOUNDED.stream().distinct().count());
    }
}
