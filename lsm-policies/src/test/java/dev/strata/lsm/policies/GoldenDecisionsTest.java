package dev.strata.lsm.policies;

import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Each policy's decisions over its first 200 uniform flushes at k = 3 and 5, against
 * golden text files in src/test/resources/golden (one line per flush: what the policy did
 * and the stack afterwards, oldest component first). Regenerate after an intended change
 * with {@code -Dstrata.golden.update=true} and review the diff.
 */
class GoldenDecisionsTest {
    private static final int FLUSHES = 200;
    private static final Path GOLDEN = Path.of("src", "test", "resources", "golden");

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (int k : new int[] {3, 5}) {
            String kk = String.valueOf(k);
            all.add(Arguments.of("constant", k, Map.of("k", kk)));
            all.add(Arguments.of("bigtable", k, Map.of("k", kk)));
            all.add(Arguments.of("exploring", k, Map.of("k", kk)));
            all.add(Arguments.of("minlatency", k, Map.of("k", kk)));
            all.add(Arguments.of("binomial", k, Map.of("k", kk)));
            // Policies without a depth bound: k sets their count threshold.
            all.add(Arguments.of("prefix", k, Map.of("max-tolerance-component-count", kk)));
            all.add(Arguments.of("concurrent", k, Map.of("min-merge-count", kk)));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} k={1}")
    @MethodSource("cases")
    void decisionsMatchGoldenFile(String policy, int k, Map<String, String> params) throws IOException {
        List<String> lines = new ArrayList<>();
        Simulator sim = Simulator.of(policy, params, Semantics.MODEL, FlushLengths.parse("uniform", 0))
                .onDecision(lines::add);
        SimulationResult r = sim.run(FLUSHES, new long[] {FLUSHES});
        List<String> actual = new ArrayList<>();
        actual.add("# " + policy + " " + new java.util.TreeMap<>(r.params()) + ", " + FLUSHES
                + " uniform flushes, model semantics");
        actual.add("# stack after each flush, oldest component first");
        actual.addAll(lines);
        actual.add(String.format("# write amplification %.6f, average component count %.6f",
                r.writeAmplification(), r.avgComponentCount()));
        Path file = GOLDEN.resolve(policy + "-k" + k + ".txt");
        if (Boolean.getBoolean("strata.golden.update")) {
            Files.createDirectories(GOLDEN);
            Files.write(file, actual);
            return;
        }
        assertTrue(Files.exists(file), "missing golden file " + file + " (run with -Dstrata.golden.update=true)");
        List<String> expected = Files.readAllLines(file);
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                fail(file + " line " + (i + 1) + ":\n  expected: " + expected.get(i) + "\n  actual:   " + actual.get(i));
            }
        }
        assertEquals(expected.size(), actual.size(), "line count of " + file);
    }
}
