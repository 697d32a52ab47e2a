package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policies.DecisionScript;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.util.List;

/**
 * Golden decision traces of the design-space primitives and presets (check DS1), Pebble
 * style: {@code designspace/decisions.txt} (format: {@link DecisionScript}).
 */
class DesignSpaceDecisionsTest {

    @TestFactory
    List<DynamicTest> decisionTraces() throws IOException {
        return DecisionScript.goldenTests("/designspace/decisions.txt");
    }
}
