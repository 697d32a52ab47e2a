package dev.strata.lsm.policy.designspace;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Golden decision traces of the design-space primitives and presets (check DS1), Pebble
 * style: {@code designspace/decisions.txt} holds cases of a scripted tree and the expected
 * decisions after a {@code ----} line; cases are separated by {@code ====}. To accept new
 * output after a deliberate change, run with {@code -Dstrata.golden.print=true} and review
 * the printed traces.
 */
class DesignSpaceDecisionsTest {

    @TestFactory
    List<DynamicTest> decisionTraces() throws IOException {
        String text;
        try (InputStream in = getClass().getResourceAsStream("/designspace/decisions.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (String block : text.split("\n====\n")) {
            String[] halves = block.split("\n----(\n|$)", 2);
            List<String> script = List.of(halves[0].split("\n"));
            String title = script.stream().filter(l -> l.startsWith("# ")).findFirst().orElse("case").substring(2);
            String expected = halves.length > 1 ? halves[1].strip() : "";
            tests.add(DynamicTest.dynamicTest(title, () -> {
                String actual = DecisionScript.run(script).strip();
                if (Boolean.getBoolean("strata.golden.print")) {
                    System.out.println(halves[0].strip() + "\n----\n" + actual + "\n====");
                }
                assertEquals(expected, actual, title);
            }));
        }
        return tests;
    }
}
