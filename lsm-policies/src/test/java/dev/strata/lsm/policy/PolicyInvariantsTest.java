package dev.strata.lsm.policy;

import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
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
 * simulator checks both on every step and throws otherwise), and no task uses a component
 * that is already being merged.
 */
class PolicyInvariantsTest {
    private static final List<String> BOUNDED = List.of("constant", "bigtable", "exploring", "minlatency", "binomial");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"constant", "bigtable", "exploring", "minlatency", "binomial"})
    void boundNeverExceededUnderRandomFlushLengths(String policy) {
        long seed = System.nanoTime();
        System.out.println(policy + " seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 12; round++) {
            int k = 2 + rnd.nextInt(7);
            String lengths = "random:1:" + (1 + rnd.nextInt(1000));
            SimulationResult r = Simulator.of(policy, Map.of("k", String.valueOf(k)), Semantics.MODEL,
                    FlushLengths.parse(lengths, rnd.nextLong())).run(3000, new long[0]);
            assertTrue(r.maxComponentCount() <= k, policy + " k=" + k + " " + lengths + " reached "
                    + r.maxComponentCount() + " components (seed " + seed + ")");
            assertTrue(r.writeAmplification() >= 1.0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"prefix", "concurrent"})
    void unboundedPoliciesStayStableUnderRandomFlushLengths(String policy) {
        long seed = System.nanoTime();
        System.out.println(policy + " seed=" + seed);
        Random rnd = new Random(seed);
        for (int round = 0; round < 12; round++) {
            Map<String, String> params = policy.equals("prefix")
                    ? Map.of("max-mergable-component-size", String.valueOf(50 + rnd.nextInt(5000)),
                    "max-tolerance-component-count", String.valueOf(2 + rnd.nextInt(8)))
                    : Map.of("min-merge-count", String.valueOf(2 + rnd.nextInt(4)),
                    "max-merge-count", String.valueOf(6 + rnd.nextInt(6)));
            SimulationResult r = Simulator.of(policy, params, Semantics.MODEL,
                    FlushLengths.parse("random:1:" + (1 + rnd.nextInt(1000)), rnd.nextLong())).run(3000, new long[0]);
            assertTrue(r.writeAmplification() >= 1.0);
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
