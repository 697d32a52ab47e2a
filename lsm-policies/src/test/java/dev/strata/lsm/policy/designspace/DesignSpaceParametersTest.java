package dev.strata.lsm.policy.designspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.PolicyParameters;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The design-space parameters have one typed path: declared once ({@link
 * DesignSpacePresets#parameters}, each range and default in one place), parsed once by {@link
 * PolicyParameters#resolve}, read as typed values by {@link DesignSpacePresets#config(String,
 * PolicyParameters)}; no value goes back to a string to be parsed again.
 */
class DesignSpaceParametersTest {

    @Test
    void theFactoryDeclaresThePresetsParameters() {
        for (String preset : DesignSpacePresets.allPresetNames()) {
            assertEquals(DesignSpacePresets.parameters(preset).toString(),
                    MergePolicies.find(preset).parameters().toString(), preset);
        }
    }

    @Test
    void typedValuesReachTheConfigurationAsGiven() {
        PolicyParameters p = PolicyParameters.resolve("tier", DesignSpacePresets.parameters("tier"), Map.of(
                "tombstone-ttl", "2s", "max-dirty-ratio", "0.3, 0.4", "layout", "hybrid", "hybrid-levels", "T,L,L",
                "target-file-bytes", "2MiB", "triggers", "tombstone-ttl,runs"));
        DesignSpaceConfig c = DesignSpacePresets.config("tier", p);
        assertEquals(2000, c.tombstoneTtlMillis());
        assertEquals(List.of(0.3, 0.4), c.maxDirtyRatio());
        assertEquals(2L << 20, c.targetFileBytes());
        assertEquals(List.of(TriggerKind.TOMBSTONE_TTL, TriggerKind.RUNS), c.triggers());
        assertEquals(Layout.hybrid("T,L,L").toString(), c.layout().toString());
        // The preset's own values where none is given: tier is tiered by sorted runs.
        assertEquals(Granularity.SORTED_RUNS, c.granularity());
        assertEquals(c.toString(), DesignSpacePresets.config("tier", Map.of("tombstone-ttl", "2s", "max-dirty-ratio", "0.3, 0.4",
                "layout", "hybrid", "hybrid-levels", "T,L,L", "target-file-bytes", "2MiB",
                "triggers", "tombstone-ttl,runs")).toString());
    }

    @Test
    void aRangeIsCheckedInOnePlaceWithOneMessage() {
        String direct = assertThrows(IllegalArgumentException.class,
                () -> DesignSpacePresets.config("lo1", Map.of("size-ratio", "1"))).getMessage();
        ConfigException viaStore = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().mergePolicy("lo1", Map.of("size-ratio", "1")).build());
        assertEquals(direct, viaStore.getMessage());
        assertEquals("mergePolicy.size-ratio", viaStore.setting());
        assertTrue(direct.contains("'size-ratio'") && direct.contains("from 2 to 1000"), direct);
    }

    @Test
    void aRuleAcrossParametersIsStillChecked() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DesignSpacePresets.config(
                "tier", Map.of("level1-run-trigger", "30", "level0-stop-runs", "20")));
        assertTrue(e.getMessage().contains("level0-stop-runs (20) must be at least level1-run-trigger (30)"),
                e.getMessage());
    }
}
