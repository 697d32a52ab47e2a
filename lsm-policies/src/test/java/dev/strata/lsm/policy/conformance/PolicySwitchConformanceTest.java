package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import dev.strata.lsm.testkit.SlowTest;

/**
 * Conformance, part (c): a store may be reopened with another policy (the XML names a new
 * one), so every policy must work on any valid tree, not only on trees it built. Each
 * registered policy takes over a store that a predecessor of each family shaped — a stack
 * of level-0 runs ({@code binomial}), leveled trees ({@code lo1}, and {@code one-leveling}
 * with a tiered level 0), size tiers ({@code tier}), and partitioned trees ({@code spooky},
 * {@code vlsm}) — and must run
 * without a single policy error while the store keeps the oracle's contents. Each phase is a
 * history of {@link StoreConformanceTest}'s memtable size and key space, 1,500 operations in
 * the fast lane and 4,000 (the size before the fast lane existed) in the slow lane. Found by
 * {@code strata-bench torture}, which changes the policy on reopen: thousands of rejected
 * merges (a stack policy merging part of a level-0 run of several components; leveled
 * policies placing merges above older overlapping data). Replay with
 * {@code -Dstrata.test.seed=N}.
 */
@SlowTest
class PolicySwitchConformanceTest {
    private static final String[] PREDECESSORS = {"binomial", "lo1", "one-leveling", "tier", "spooky", "vlsm"};

    @TempDir
    Path tmp;

    /**
     * In the fast lane one policy of each family ({@link RegisteredPolicies#REPRESENTATIVES}), each
     * after one predecessor family (the families taking turns, so every family is a predecessor
     * of some); in the slow lane (PolicySwitchConformanceTest at multiplier 3) every registered policy
     * after predecessors of {@code strata.test.multiplier} families.
     */
    static Stream<Arguments> switches() {
        List<String> names = RegisteredPolicies.representativesInTheFastLane().toList();
        int perPolicy = TestScale.scaled(1, PREDECESSORS.length);
        // In the fast lane, shifted by one so that each of the six predecessors comes once over
        // the six representatives (lo1 -> binomial, one-leveling -> blockdb, tier -> lo1,
        // spooky -> size-tiered, vlsm -> spooky, binomial -> vlsm).
        int offset = TestScale.multiplier() > 1 ? 0 : 1;
        return IntStream.range(0, names.size()).boxed().flatMap(i -> {
            String next = names.get(i);
            List<String> before = new ArrayList<>();
            for (int j = 0; j < PREDECESSORS.length && before.size() < perPolicy; j++) {
                String candidate = PREDECESSORS[(i + j + offset) % PREDECESSORS.length];
                if (!candidate.equals(next)) {
                    before.add(candidate);
                }
            }
            return before.stream().map(b -> Arguments.of(b, next));
        });
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("switches")
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPolicyTakesOverATreeAnotherPolicyShaped(String before, String next) {
        RegisteredPolicies.skipKnownGap("switch-from-" + before, next);
        long seed = TestSeed.orRandom();
        // The slow lane's phases are 4,000 operations, as before the fast lane existed.
        int ops = StoreConformanceTest.FULL_SIZE ? 4_000 : StoreConformanceTest.OPS;
        String replay = before + " -> " + next + " (replay with -Dstrata.test.seed=" + seed + ")";
        Random rnd = new Random(seed ^ (before + next).hashCode());
        Path dir = tmp.resolve("db");
        TreeMap<byte[], byte[]> oracle = new TreeMap<>(Arrays::compareUnsigned);
        int keySpace = StoreConformanceTest.KEY_SPACE;
        String[] phases = {before, next};
        for (int phase = 0; phase < 2; phase++) {
            StoreConfig config = StoreConfig.builder().memtableBytes(StoreConformanceTest.MEMTABLE_BYTES).blockCacheBytes(1 << 20)
                    .mergePolicy(phases[phase], Map.of()).mergeOperator("stringappend").build();
            try (LsmStore store = LsmStore.open(dir, config)) {
                StoreConformanceTest.assertSameContents(oracle, store, "after opening with " + phases[phase] + ": "
                        + replay);
                for (int i = 0; i < ops; i++) {
                    StoreConformanceTest.step(rnd, store, oracle, keySpace, phases[phase] + " op " + i + ": " + replay);
                }
                store.awaitMerges();
                StoreStats stats = store.stats();
                assertEquals(0, stats.policyErrors(), "policy errors under " + phases[phase] + ": " + replay + "; "
                        + stats);
                StoreConformanceTest.assertSameContents(oracle, store, "end of " + phases[phase] + ": " + replay);
            }
        }
    }
}
