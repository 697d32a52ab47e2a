package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conformance, part (a): every registered policy with its default parameters runs in the
 * simulator under random flush lengths while {@link CheckingPolicy} checks every view and
 * decision (stability, the component bound, no component in two merges, no writer stopped
 * forever); a policy exception fails the case. Replay with {@code -Dstrata.test.seed=N}.
 */
class SimulatorConformanceTest {
    /** Flushes per case: 250 in the fast lane, 2,500 in the slow lane ({@link SimulatorConformanceSlowTest}). */
    private static final int FLUSHES = TestScale.scaled(250);

    static java.util.stream.Stream<String> policies() {
        return RegisteredPolicies.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void invariantsHoldAtEveryStep(String name) {
        RegisteredPolicies.skipKnownGap("simulator", name);
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed ^ name.hashCode());
        MergePolicyFactory f = MergePolicies.find(name);
        PolicyParameters params = PolicyParameters.resolve(name, f.parameters(), Map.of());
        int bound = RegisteredPolicies.componentBound(f);
        for (String lengths : new String[] {"uniform", "random:1:1000"}) {
            CheckingPolicy checking = new CheckingPolicy(name, f.create(params), bound);
            SimulationResult r;
            try {
                r = new Simulator(name, params, checking, Semantics.FLUSH_THEN_MERGE,
                        FlushLengths.parse(lengths, rnd.nextLong())).run(FLUSHES, new long[0]);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(name + " with flush lengths " + lengths + " failed; replay with "
                        + "-Dstrata.test.seed=" + seed + ": " + e.getMessage(), e);
            }
            assertEquals(FLUSHES, r.flushes());
            assertTrue(checking.calls() >= FLUSHES, name + ": the policy was consulted " + checking.calls() + " times");
            if (bound > 0) {
                assertTrue(r.maxComponentCount() <= bound, name + " reached " + r.maxComponentCount()
                        + " components, above k=" + bound + " (seed " + seed + ")");
            }
        }
    }
}
