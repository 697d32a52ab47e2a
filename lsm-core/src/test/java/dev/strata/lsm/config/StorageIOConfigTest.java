package dev.strata.lsm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ParameterizedTestStorageIOFactory;
import dev.strata.lsm.io.StorageIOs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code <storageIO name=".."><param .../></storageIO>} and {@code Builder.storageIO(name, params)}:
 * read, validated like a merge policy (same messages, positions at the offending element),
 * and used by the store.
 */
class StorageIOConfigTest {
    @TempDir
    Path dir;

    private static ConfigException assertError(String xml, String position, String... fragments) {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(xml));
        String m = e.getMessage();
        assertTrue(m.startsWith("test.xml:" + position + ": "), "expected position " + position + " in: " + m);
        for (String f : fragments) {
            assertTrue(m.contains(f), "expected '" + f + "' in: " + m);
        }
        return e;
    }

    @Test
    void nioIsTheDefaultAndRegisteredByName() {
        StoreConfig c = StoreConfig.defaults();
        assertEquals("nio", c.storageIOName());
        assertEquals(Map.of(), c.storageIOParams());
        assertNull(c.storageIO());
        assertTrue(StorageIOs.names().contains("nio"), StorageIOs.names().toString());
        assertInstanceOf(FileChannelStorageIO.class, c.createStorageIO());
        assertInstanceOf(FileChannelStorageIO.class, XmlConfigTest.read("""
                <store>
                  <storageIO name="nio"/>
                </store>
                """).createStorageIO());
    }

    @Test
    void documentSelectsTheImplementationAndItsParameters() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <mergePolicy name="size-tiered">
                    <param name="fanout" value="8"/>
                  </mergePolicy>
                  <storageIO name="test-io">
                    <param name="direct" value="false"/>
                    <param name="depth" value="9"/>
                  </storageIO>
                </store>
                """);
        assertEquals(ParameterizedTestStorageIOFactory.NAME, c.storageIOName());
        assertEquals(Map.of("direct", "false", "depth", "9"), c.storageIOParams());
        // The merge policy's params are not mixed up with the storage IO's.
        assertEquals(Map.of("fanout", "8"), c.mergePolicyParams());
        c.createStorageIO();
        assertEquals(false, ParameterizedTestStorageIOFactory.lastCreated.getBoolean("direct"));
        assertEquals(9, ParameterizedTestStorageIOFactory.lastCreated.getInt("depth"));
    }

    @Test
    void unknownImplementationIsReportedAtItsElementAndListsTheAvailableOnes() {
        assertError("""
                <store>
                  <storageIO name="io_uring">
                    <param name="direct" value="true"/>
                  </storageIO>
                </store>
                """, "2:30", "unknown storage IO 'io_uring'", "available: ", "nio", "test-io");
    }

    @Test
    void unknownParameterIsReportedAtItsParamAndListsTheAllowedOnes() {
        assertError("""
                <store>
                  <storageIO name="test-io">
                    <param name="punch" value="true"/>
                  </storageIO>
                </store>
                """, "3:39", "unknown parameter 'punch' for storage IO 'test-io'", "allowed: direct, depth");
    }

    @Test
    void nioTakesNoParameters() {
        assertError("""
                <store>
                  <storageIO name="nio">
                    <param name="direct" value="true"/>
                  </storageIO>
                </store>
                """, "3:40", "unknown parameter 'direct' for storage IO 'nio'", "takes no parameters");
    }

    @Test
    void badValueAndDuplicateAreReportedAtTheirParam() {
        assertError("""
                <store>
                  <storageIO name="test-io">
                    <param name="depth" value="99"/>
                  </storageIO>
                </store>
                """, "3:37", "\"99\"", "'depth'", "an integer from 1 to 16");
        assertError("""
                <store>
                  <storageIO name="test-io">
                    <param name="direct" value="yes please"/>
                  </storageIO>
                </store>
                """, "3:46", "'direct'");
        assertError("""
                <store>
                  <storageIO name="test-io">
                    <param name="depth" value="2"/>
                    <param name="depth" value="3"/>
                  </storageIO>
                </store>
                """, "4:36", "parameter 'depth' of storage IO 'test-io' is given twice", "line 3, column 36");
    }

    @Test
    void schemaRequiresAName() {
        assertError("""
                <store>
                  <storageIO/>
                </store>
                """, "2:15", "'name'", "'storageIO'");
    }

    @Test
    void builderValidatesByName() {
        ConfigException unknown = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().storageIO("io_uring").build());
        assertTrue(unknown.getMessage().contains("unknown storage IO 'io_uring'; available: "), unknown.getMessage());
        ConfigException param = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().storageIO("nio", Map.of("direct", "true")).build());
        assertTrue(param.getMessage().contains("unknown parameter 'direct' for storage IO 'nio'"), param.getMessage());
        StoreConfig c = StoreConfig.builder().storageIO("test-io", Map.of("depth", "3")).build();
        assertEquals(Map.of("depth", "3"), c.toBuilder().build().storageIOParams());
    }

    @Test
    void storeOpensItsFilesThroughTheNamedImplementation() throws Exception {
        ParameterizedTestStorageIOFactory.lastCreated = null;
        StoreConfig c = StoreConfig.builder().storageIO("test-io", Map.of("depth", "5")).build();
        try (LsmStore store = LsmStore.open(dir.resolve("db"), c)) {
            store.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(5, ParameterizedTestStorageIOFactory.lastCreated.getInt("depth"));
    }
}
