package dev.strata.lsm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.lsm.policy.MergePolicies;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoliciesCommandTest {

    private static JsonNode runJson() throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            int code = new CommandLine(new BenchCli()).execute("policies", "--json");
            assertEquals(0, code);
        } finally {
            System.setOut(saved);
        }
        return new ObjectMapper().readTree(buf.toString(StandardCharsets.UTF_8));
    }

    @Test
    void jsonListsEveryRegisteredPolicyWithItsModuleAndTypedParameters() throws Exception {
        JsonNode root = runJson();
        List<String> names = new ArrayList<>();
        for (JsonNode p : root.get("policies")) {
            names.add(p.get("name").asText());
        }
        assertEquals(MergePolicies.names(), names);
        for (String expected : List.of("binomial", "size-tiered", "no-merge", "lo1", "tier", "one-leveling",
                "design-space")) {
            assertTrue(names.contains(expected), expected);
        }
        Map<String, String> modules = Map.of("binomial", "lsm-policies", "size-tiered", "lsm-core", "lo1",
                "lsm-policies");
        for (JsonNode p : root.get("policies")) {
            String name = p.get("name").asText();
            if (modules.containsKey(name)) {
                assertEquals(modules.get(name), p.get("module").asText(), name);
            }
            if (name.equals("binomial")) {
                JsonNode k = p.get("params").get(0);
                assertEquals("k", k.get("name").asText());
                assertEquals("int", k.get("type").asText());
                assertEquals("5", k.get("default").asText());
                assertTrue(k.get("description").asText().length() > 3);
            }
            if (name.equals("tsa")) {
                JsonNode ttl = find(p, "tombstone-ttl");
                assertEquals("duration", ttl.get("type").asText());
                assertEquals("10m", ttl.get("default").asText());
                JsonNode triggers = find(p, "triggers");
                assertEquals("choice-list", triggers.get("type").asText());
                assertEquals("tombstone-ttl,saturation", triggers.get("default").asText());
                JsonNode layout = find(p, "layout");
                assertEquals("choice", layout.get("type").asText());
                assertTrue(layout.get("values").toString().contains("one-leveling"));
            }
        }
    }

    private static JsonNode find(JsonNode policy, String param) {
        for (JsonNode n : policy.get("params")) {
            if (n.get("name").asText().equals(param)) {
                return n;
            }
        }
        throw new AssertionError("no parameter " + param + " in " + policy.get("name"));
    }
}
