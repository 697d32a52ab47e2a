package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policies.DecisionScript;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.util.List;

/**
 * Golden decision traces of vLSM's rule (FAMILIES.md §3.1, checks VL1 and VL3): level 0 as
 * a FIFO, vSST cutting spec, level-1 selection of good vSSTs, leveled levels below, admission
 * ({@code vlsm/decisions.txt}, format: {@link DecisionScript}).
 */
class VlsmDecisionsTest {

    @TestFactory
    List<DynamicTest> decisionTraces() throws IOException {
        return DecisionScript.goldenTests("/vlsm/decisions.txt");
    }
}
