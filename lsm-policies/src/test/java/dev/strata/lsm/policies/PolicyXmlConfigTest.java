package dev.strata.lsm.policies;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /** Reads the XML, then builds the policy the store would from it and returns its description. */
    private String policyFrom(String xml) throws Exception {
        StoreConfig c = read(xml);
        MergePolicyFactory f = MergePolicies.find(c.mergePolicy());
        return f.create(PolicyParameters.resolve(c.mergePolicy(), f.parameters(), c.mergePolicyParams())).toString();
    }

    @Test
    void everyPolicyWithItsPinnedParameters() throws Exception {
        // Every value differs from its default, so a parameter that did not arrive shows.
        assertEquals("constant(k=3)",
                policyFrom("<store><mergePolicy name=\"constant\"><param name=\"k\" value=\"3\"/></mergePolicy></store>"));
        assertEquals("bigtable(k=4)",
                policyFrom("<store><mergePolicy name=\"bigtable\"><param name=\"k\" value=\"4\"/></mergePolicy></store>"));
        assertEquals("exploring(k=6, lambda=1.5, min-components=3, max-components=8)",
                policyFrom("<store><mergePolicy name=\"exploring\"><param name=\"k\" value=\"6\"/>"
                + "<param name=\"lambda\" value=\"1.5\"/><param name=\"min-components\" value=\"3\"/>"
                + "<param name=\"max-components\" value=\"8\"/></mergePolicy></store>"));
        assertEquals("minlatency(k=7)",
                policyFrom("<store><mergePolicy name=\"minlatency\"><param name=\"k\" value=\"7\"/></mergePolicy></store>"));
        assertEquals("binomial(k=2)",
                policyFrom("<store><mergePolicy name=\"binomial\"><param name=\"k\" value=\"2\"/></mergePolicy></store>"));
        assertEquals("prefix(max-mergable-component-size=536870912, max-tolerance-component-count=7)",
                policyFrom("<store><mergePolicy name=\"prefix\"><param name=\"max-mergable-component-size\" value=\"512MiB\"/>"
                + "<param name=\"max-tolerance-component-count\" value=\"7\"/></mergePolicy></store>"));
        assertEquals("concurrent(min-merge-count=4, max-merge-count=12, max-component-count=40, size-ratio=1.5)",
                policyFrom("<store><mergePolicy name=\"concurrent\"><param name=\"min-merge-count\" value=\"4\"/>"
                + "<param name=\"max-merge-count\" value=\"12\"/><param name=\"max-component-count\" value=\"40\"/>"
                + "<param name=\"size-ratio\" value=\"1.5\"/></mergePolicy></store>"));
        StoreConfig none = read("<store><mergePolicy name=\"no-merge\"/></store>");
        assertEquals("no-merge", none.mergePolicy());
        assertTrue(none.mergePolicyParams().isEmpty(), none.mergePolicyParams().toString());
    }

    @Test
    void pinnedParametersChangeBehaviour() throws Exception {
        // constant with k=3 from XML: a flush onto three components merges with all three, onto two it does not.
        StoreConfig c = read("<store><mergePolicy name=\"constant\"><param name=\"k\" value=\"3\"/></mergePolicy></store>");
        MergePolicyFactory f = MergePolicies.find(c.mergePolicy());
        MergePolicy p = f.create(PolicyParameters.resolve(c.mergePolicy(), f.parameters(), c.mergePolicyParams()));
        ComponentView flushed = component(99, 10);
        assertEquals(3, p.planFlush(levelZero(3), flushed).mergeWith().size());
        assertFalse(p.planFlush(levelZero(2), flushed).merges());
    }

    private static ComponentView component(long file, long size) {
        return ComponentView.builder(new ComponentId(file, 0)).sizeBytes(size).entries(1, 0).userBytes(size)
                .keyRange(new byte[] {0}, new byte[] {1}).seqnos(file * 10, file * 10 + 9).creation(file, 0).build();
    }

    private static TreeView levelZero(int n) {
        List<RunView> runs = new ArrayList<>();
        for (int i = n; i >= 1; i--) {
            runs.add(new RunView(List.of(component(i, 10))));
        }
        return new TreeView(List.of(new LevelView(0, runs)), n, null, null);
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
