package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules across merge-policy parameters (design space, Spooky, vLSM) fail
 * {@code StoreConfig.Builder.build()} and therefore an XML document, before any store or policy
 * exists: a {@link ConfigException} whose {@code setting()} names the parameters, reported in XML
 * at the first of their {@code <param>} elements the document gives.
 */
class DesignSpaceRulesTest {
    @TempDir
    Path dir;

    /** One broken rule: the policy, its parameters, the setting named and a phrase of the message. */
    private record Case(String policy, Map<String, String> params, String setting, String message) {
    }

    private static Map<String, String> params(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static final Case[] CASES = {
        new Case("tier", params("level1-run-trigger", "30", "level0-stop-runs", "20"),
                "mergePolicy.level0-stop-runs,level1-run-trigger",
                "level0-stop-runs (20) must be at least level1-run-trigger (30)"),
        new Case("one-leveling", params("level0-slowdown-runs", "3"),
                "mergePolicy.level0-slowdown-runs,level1-run-trigger",
                "level0-slowdown-runs (3) must be 0 (derived) or at least level1-run-trigger (4)"),
        new Case("one-leveling", params("level0-stop-runs", "12", "level0-slowdown-runs", "13"),
                "mergePolicy.level0-slowdown-runs,level0-stop-runs",
                "level0-slowdown-runs (13) must be at most level0-stop-runs (12)"),
        new Case("lo1", params("triggers", "staleness,saturation"), "mergePolicy.file-ttl,triggers",
                "the staleness trigger needs file-ttl > 0"),
        new Case("tsd", params("tombstone-ttl", "0"), "mergePolicy.tombstone-ttl,triggers",
                "the tombstone-density trigger needs tombstone-ttl > 0"),
        new Case("tsa", params("tombstone-ttl", "0"), "mergePolicy.tombstone-ttl,triggers",
                "the tombstone-ttl trigger needs tombstone-ttl > 0"),
        new Case("design-space", params("triggers", "runs,saturation"), "mergePolicy.triggers,layout",
                "the runs trigger needs a tiered level, but layout leveling has none"),
        new Case("tier", params("triggers", "runs,saturation"), "mergePolicy.triggers,layout",
                "the saturation trigger needs a leveled level, but layout tiering has none"),
        new Case("one-leveling", params("triggers", "saturation"), "mergePolicy.triggers,layout",
                "layout one-leveling has tiered levels, which only the runs or space-amp trigger moves down"),
        new Case("design-space", params("layout", "hybrid", "hybrid-levels", "L,T"),
                "mergePolicy.triggers,hybrid-levels", "layout hybrid[L, T] has tiered levels"),
        new Case("blockdb", params("layout", "tiering", "triggers", "runs"), "mergePolicy.block-compaction,layout",
                "block-compaction=true merges into leveled levels below level 0, but layout tiering has none"),
        new Case("spooky", params("l0-slowdown-trigger", "8", "l0-stop-trigger", "6"),
                "mergePolicy.l0-slowdown-trigger,l0-stop-trigger",
                "need l0-slowdown-trigger (8) <= l0-stop-trigger (6)"),
        new Case("spooky", params("l0-compaction-trigger", "12", "l0-slowdown-trigger", "4", "l0-stop-trigger",
                "9"), "mergePolicy.l0-stop-trigger,l0-compaction-trigger",
                "l0-stop-trigger (9) must be >= l0-compaction-trigger (12)"),
        new Case("vlsm", params("sst-bytes", "1MiB", "min-vsst-bytes", "2MiB"),
                "mergePolicy.min-vsst-bytes,sst-bytes", "min-vsst-bytes must be in [1, sst-bytes=1048576]"),
    };

    @Test
    void theBuilderRefusesEachBrokenRuleNamingItsParameters() {
        for (Case c : CASES) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> StoreConfig.builder().mergePolicy(c.policy, c.params).build(), c.toString());
            assertEquals(c.setting, e.setting(), c.toString());
            assertTrue(e.getMessage().contains(c.message), e.getMessage());
        }
    }

    @Test
    void aFamilysBrokenRuleIsRefusedUnderTheFamilysName() {
        Case c = CASES[0];
        ConfigException e = assertThrows(ConfigException.class, () -> StoreConfig.builder()
                .family("events", FamilyOptions.builder().mergePolicy(c.policy, c.params).build()).build());
        assertEquals("family.events." + c.setting, e.setting());
        assertTrue(e.getMessage().contains(c.message), e.getMessage());
    }

    @Test
    void anXmlDocumentWithABrokenRuleFailsAtItsFirstParam() throws Exception {
        for (Case c : CASES) {
            // The policy on line 2, each parameter on a line of its own from line 3.
            String xml = "<store>\n  <mergePolicy name=\"" + c.policy + "\">\n" + c.params.entrySet().stream()
                    .map(p -> "    <param name=\"" + p.getKey() + "\" value=\"" + p.getValue() + "\"/>\n")
                    .collect(Collectors.joining()) + "  </mergePolicy>\n</store>\n";
            Path f = dir.resolve("store.xml");
            Files.writeString(f, xml);
            ConfigException e = assertThrows(ConfigException.class, () -> StoreConfig.fromXml(f), c.toString());
            String[] named = c.setting.substring("mergePolicy.".length()).split(",");
            java.util.List<String> given = java.util.List.copyOf(c.params.keySet());
            int line = -1;
            for (String n : named) {
                if (line < 0 && given.contains(n)) {
                    line = 3 + given.indexOf(n);
                }
            }
            String where = line > 0 ? "store.xml:" + line + ":" : "store.xml:2:";
            assertTrue(e.getMessage().contains(where), where + " in " + e.getMessage());
            assertTrue(e.getMessage().contains(line > 0 ? "<param>" : "<mergePolicy>"), e.getMessage());
            assertTrue(e.getMessage().contains(c.message), e.getMessage());
            ConfigException cause = assertInstanceOf(ConfigException.class, e.getCause());
            assertEquals(c.setting, cause.setting());
        }
    }

    @Test
    void everyPresetAsRegisteredKeepsTheRules() {
        for (String preset : DesignSpacePresets.allPresetNames()) {
            StoreConfig c = StoreConfig.builder().mergePolicy(preset).build();
            assertEquals(preset, c.mergePolicy());
        }
        // A rule's parameters changed together make a valid configuration again.
        assertFalse(StoreConfig.builder().mergePolicy("lo1", params("triggers", "staleness,saturation", "file-ttl",
                "1h")).build().mergePolicyParams().isEmpty());
        assertEquals("20", StoreConfig.builder().mergePolicy("tier", params("level1-run-trigger", "20",
                "level0-stop-runs", "20")).build().mergePolicyParams().get("level0-stop-runs"));
    }
}
