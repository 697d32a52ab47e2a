package dev.strata.lsm.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link PolicyParameters#parseAssignments}: the one splitter of a command line's NAME=VALUE pairs. */
class PolicyParameterAssignmentsTest {

    @Test
    void pairsKeepTheirOrderAndAreTrimmed() {
        Map<String, String> raw = PolicyParameters.parseAssignments(" k = 6 ,fanout=4", ',');
        assertEquals(List.of("k", "fanout"), List.copyOf(raw.keySet()));
        assertEquals("6", raw.get("k"));
        assertEquals(Map.of("x-offset", "0", "layout", "tiering"),
                PolicyParameters.parseAssignments("x-offset=0+layout=tiering", '+'));
        assertEquals(Map.of(), PolicyParameters.parseAssignments("", ','));
        assertEquals(Map.of(), PolicyParameters.parseAssignments(null, ','));
    }

    @Test
    void aListValueSurvivesAnotherSeparator() {
        assertEquals(Map.of("triggers", "runs,saturation"),
                PolicyParameters.parseAssignments("triggers=runs,saturation", '+'));
    }

    @Test
    void badPairsAreNamed() {
        for (String bad : new String[] {"k", "=6", "k=", "k=6,,fanout=4"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PolicyParameters.parseAssignments(bad, ','), bad);
            assertTrue(e.getMessage().contains("expected NAME=VALUE"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PolicyParameters.parseAssignments("k=6,k=7", ','));
        assertTrue(e.getMessage().contains("'k' is given twice"), e.getMessage());
    }
}
