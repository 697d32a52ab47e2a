package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policies.DecisionScript;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.util.List;

/**
 * Golden decision traces of Spooky's rule (FAMILIES.md §1.2–1.6): full preemptive, dividing
 * and partitioned merges, target selection, groups, file sizes, level addition, concurrency
 * and admission ({@code spooky/decisions.txt}, format: {@link DecisionScript}).
 */
class SpookyDecisionsTest {

    @TestFactory
    List<DynamicTest> decisionTraces() throws IOException {
        return DecisionScript.goldenTests("/spooky/decisions.txt");
    }
}
