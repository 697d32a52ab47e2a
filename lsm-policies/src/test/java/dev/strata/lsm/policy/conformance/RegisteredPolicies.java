package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Assumptions;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The policies the conformance suite runs: every factory {@link MergePolicies} finds with
 * {@code ServiceLoader}, each with its default parameters (design-space's presets are
 * registered under their own names, so each runs with its pinned preset). A new policy gets
 * the suite by being registered; nothing here lists policies.
 */
final class RegisteredPolicies {

    /**
     * Cases that cannot pass yet because the engine or the simulator lacks support that
     * issue 10 adds, keyed by "{@code suite:policy}", with the reason shown as the skip
     * message. Each entry must name what is missing; remove it as soon as that support lands.
     */
    private static final Map<String, String> KNOWN_GAPS = Map.of();

    private RegisteredPolicies() {
    }

    /** Names of every registered policy, sorted. */
    static Stream<String> names() {
        List<String> names = MergePolicies.names();
        if (names.isEmpty()) {
            throw new IllegalStateException("ServiceLoader found no merge policy");
        }
        return names.stream();
    }

    /**
     * One policy of each family whose merges differ in what they do to files, for the fast lane
     * of suites whose cost is a store per policy: a size-tiered stack of whole-table merges
     * ({@code size-tiered}), a bounded-depth stack ({@code binomial}), leveling with partial
     * merges and moves ({@code lo1}), block compaction into existing files ({@code blockdb}),
     * partitioned merges cut at another level's files ({@code spooky}) and variable-size
     * partitions ({@code vlsm}).
     */
    static final List<String> REPRESENTATIVES = List.of("binomial", "blockdb", "lo1", "size-tiered", "spooky", "vlsm");

    /**
     * {@link #REPRESENTATIVES} in the fast lane ({@code strata.test.multiplier} 1), every
     * registered policy ({@link #names()}) at a larger multiplier, so the slow lane's subclass
     * of a suite that uses this runs every policy. Fails if a representative is not registered.
     */
    static Stream<String> representativesInTheFastLane() {
        if (TestScale.multiplier() > 1) {
            return names();
        }
        List<String> names = MergePolicies.names();
        for (String r : REPRESENTATIVES) {
            if (!names.contains(r)) {
                throw new IllegalStateException("representative policy " + r + " is not registered: " + names);
            }
        }
        return REPRESENTATIVES.stream();
    }

    /**
     * The component bound a policy promises, or -1: by convention a parameter named
     * {@code k} is "the most components that may exist" (the bounded-depth policies).
     */
    static int componentBound(MergePolicyFactory factory) {
        for (PolicyParameter p : factory.parameters()) {
            if (p.name().equals("k")) {
                return ((Number) p.defaultValue()).intValue();
            }
        }
        return -1;
    }

    /** Skips (visibly, with its reason) a case listed in {@link #KNOWN_GAPS}. */
    static void skipKnownGap(String suite, String policy) {
        String reason = KNOWN_GAPS.get(suite + ":" + policy);
        Assumptions.assumeTrue(reason == null, () -> "known gap: " + reason);
    }
}
