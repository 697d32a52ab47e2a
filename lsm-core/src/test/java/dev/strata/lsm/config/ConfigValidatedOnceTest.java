package dev.strata.lsm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One options object, validated once (Pebble's {@code Options.Validate}): reading a document
 * and opening a store with it look the merge policy up and parse its parameters exactly once,
 * however many elements the document has; copies that keep the policy do not parse it again;
 * and an error found by that one validation still names the element and parameter at fault.
 */
class ConfigValidatedOnceTest {
    @TempDir
    Path tmp;
    private ClassLoader saved;
    private URLClassLoader loader;

    /** Makes {@link CountingPolicyFactory} a registered policy for this test's thread only. */
    @BeforeEach
    void registerCountingPolicy() throws IOException {
        Path services = tmp.resolve("services/META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve("dev.strata.lsm.policy.MergePolicyFactory"),
                CountingPolicyFactory.class.getName() + "\n");
        saved = Thread.currentThread().getContextClassLoader();
        loader = new URLClassLoader(new URL[] {tmp.resolve("services").toUri().toURL()}, getClass().getClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        CountingPolicyFactory.RESOLVED.set(0);
        CountingPolicyFactory.CREATED.set(0);
    }

    @AfterEach
    void unregister() throws IOException {
        Thread.currentThread().setContextClassLoader(saved);
        loader.close();
    }

    private static final String DOCUMENT = """
            <store>
              <memtable bytes="1MiB" maxImmutable="3"/>
              <wal mode="sync"/>
              <sstable pageSize="4096" bloomBitsPerKey="12"/>
              <blockCache bytes="8MiB"/>
              <background threads="1" policyTickMillis="0"/>
              <mergePolicy name="counting">
                <param name="fanout" value="7"/>
                <param name="unit" value="2MiB"/>
              </mergePolicy>
              <families>
                <family name="users">
                  <memtable bytes="2MiB"/>
                </family>
              </families>
            </store>
            """;

    @Test
    void aDocumentAndAnOpenResolveThePolicyOnce() {
        StoreConfig config = XmlConfigTest.read(DOCUMENT);
        assertEquals(1, CountingPolicyFactory.RESOLVED.get(), "resolutions while reading the document");
        assertEquals(7, config.mergePolicyParameters().getInt("fanout"));
        assertEquals(2L << 20, config.mergePolicyParameters().getLong("unit"));
        assertEquals(0, CountingPolicyFactory.CREATED.get());

        try (LsmStore store = LsmStore.open(tmp.resolve("db"), config)) {
            store.put(new byte[] {1}, new byte[] {2});
        }
        assertEquals(1, CountingPolicyFactory.RESOLVED.get(), "the open parsed the policy's parameters again");
        // The store's tree and the configured family (which takes the store's policy) each run a new one.
        assertEquals(2, CountingPolicyFactory.CREATED.get());
        assertEquals(7, CountingPolicyFactory.lastCreated.getInt("fanout"));
    }

    @Test
    void aCopyKeepingThePolicyDoesNotResolveItAgain() {
        StoreConfig config = StoreConfig.builder().mergePolicy(CountingPolicyFactory.NAME, Map.of("fanout", "9"))
                .family("a", FamilyOptions.builder().memtableBytes(1 << 20).build()).build();
        assertEquals(1, CountingPolicyFactory.RESOLVED.get());
        StoreConfig copy = config.toBuilder().memtableBytes(8 << 20).build();
        assertEquals(1, CountingPolicyFactory.RESOLVED.get());
        assertEquals(9, copy.mergePolicyParameters().getInt("fanout"));
        assertEquals(9, copy.familyConfig("a").mergePolicyParameters().getInt("fanout"));
        // Naming the policy again is a new choice, parsed once more.
        config.toBuilder().mergePolicy(CountingPolicyFactory.NAME, Map.of("fanout", "3")).build();
        assertEquals(2, CountingPolicyFactory.RESOLVED.get());
    }

    @Test
    void aBadParameterFoundByTheOneValidationIsReportedAtItsParam() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                DOCUMENT.replace("value=\"2MiB\"", "value=\"0\"")));
        assertTrue(e.getMessage().startsWith("test.xml:9:35: <param>: "), e.getMessage());
        assertTrue(e.getMessage().contains("'unit'"), e.getMessage());
        assertEquals("mergePolicy.unit", ((ConfigException) e.getCause()).setting());
        assertEquals(1, CountingPolicyFactory.RESOLVED.get());
    }

    @Test
    void aFamilysBadPolicyParameterIsReportedAtItsParamNamingTheFamily() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read("""
                <store>
                  <families>
                    <family name="users">
                      <mergePolicy name="size-tiered">
                        <param name="fanout" value="100"/>
                      </mergePolicy>
                    </family>
                  </families>
                </store>
                """));
        assertTrue(e.getMessage().startsWith("test.xml:5:43: <param>: "), e.getMessage());
        assertTrue(e.getMessage().contains("column family \"users\""), e.getMessage());
        assertTrue(e.getMessage().contains("'fanout'"), e.getMessage());
    }

    @Test
    void aValueLimitBrokenByThePageSizeIsReportedAtTheLimitsElementWhereverItStands() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read("""
                <store>
                  <limits maxValueBytes="1073730000"/>
                  <sstable pageSize="64KiB"/>
                </store>
                """));
        // Valid at the default page size; the larger page's longer keys leave less room. Before,
        // the element read last (here <sstable>) took the blame.
        assertTrue(e.getMessage().startsWith("test.xml:2:39: <limits>: "), e.getMessage());
        assertTrue(e.getMessage().contains("maxValueBytes"), e.getMessage());
    }
}
