package dev.strata.lsm.policy;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stack policies are chosen and tuned in XML; mistakes are errors naming line and column. */
class PolicyXmlConfigTest {
    @TempDir
    Path dir;

    private StoreConfig read(String xml) throws Exception {
        Path f = dir.resolve("store.xml");
        Files.writeString(f, xml);
        return StoreConfig.fromXml(f);
    }

    @Test
    void binomialWithK() throws Exception {
        StoreConfig c = read("<store>\n  <mergePolicy name=\"binomial\"><param name=\"k\" value=\"6\"/></mergePolicy>\n</store>\n");
        assertEquals("binomial", c.mergePolicy());
        assertEquals("6", c.mergePolicyParams().get("k"));
    }

    @Test
    void everyPolicyWithItsPinnedParameters() throws Exception {
        read("<store><mergePolicy name=\"constant\"><param name=\"k\" value=\"3\"/></mergePolicy></store>");
        read("<store><mergePolicy name=\"bigtable\"><param name=\"k\" value=\"4\"/></mergePolicy></store>");
        read("<store><mergePolicy name=\"exploring\"><param name=\"k\" value=\"5\"/><param name=\"lambda\" value=\"1.5\"/>"
                + "<param name=\"min-components\" value=\"3\"/><param name=\"max-components\" value=\"8\"/></mergePolicy></store>");
        read("<store><mergePolicy name=\"minlatency\"><param name=\"k\" value=\"7\"/></mergePolicy></store>");
        read("<store><mergePolicy name=\"prefix\"><param name=\"max-mergable-component-size\" value=\"512MiB\"/>"
                + "<param name=\"max-tolerance-component-count\" value=\"7\"/></mergePolicy></store>");
        read("<store><mergePolicy name=\"concurrent\"><param name=\"min-merge-count\" value=\"4\"/>"
                + "<param name=\"max-merge-count\" value=\"12\"/><param name=\"max-component-count\" value=\"40\"/>"
                + "<param name=\"size-ratio\" value=\"1.5\"/></mergePolicy></store>");
        read("<store><mergePolicy name=\"no-merge\"/></store>");
    }

    @Test
    void unknownPolicyNamesLineColumnAndListsPolicies() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> read("<store>\n  <mergePolicy name=\"binomal\"/>\n</store>\n"));
        assertTrue(e.getMessage().contains("store.xml:2:"), e.getMessage());
        assertTrue(e.getMessage().contains("binomal") && e.getMessage().contains("binomial")
                && e.getMessage().contains("minlatency"), e.getMessage());
    }

    @Test
    void unknownParameterListsAllowedOnes() {
        ConfigException e = assertThrows(ConfigException.class, () -> read(
                "<store>\n  <mergePolicy name=\"exploring\">\n    <param name=\"ratio\" value=\"1\"/>\n  </mergePolicy>\n</store>\n"));
        assertTrue(e.getMessage().contains("store.xml:3:"), e.getMessage());
        assertTrue(e.getMessage().contains("ratio") && e.getMessage().contains("k, lambda, min-components, max-components"),
                e.getMessage());
    }

    @Test
    void badValueSaysWhatIsAllowed() {
        ConfigException e = assertThrows(ConfigException.class, () -> read(
                "<store>\n  <mergePolicy name=\"binomial\">\n    <param name=\"k\" value=\"zero\"/>\n  </mergePolicy>\n</store>\n"));
        assertTrue(e.getMessage().contains("store.xml:3:") && e.getMessage().contains("from 1 to 100"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> read(
                "<store><mergePolicy name=\"minlatency\"><param name=\"k\" value=\"0\"/></mergePolicy></store>"));
        assertTrue(e.getMessage().contains("from 1 to 100"), e.getMessage());
    }
}
