package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <families>} in the XML configuration and its builder equivalent. */
class FamilyConfigTest {
    private static StoreConfig read(String xml) {
        return XmlConfigTest.read(xml);
    }

    private static void assertError(String part, String xml) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(xml));
        assertTrue(e.getMessage().contains(part), "expected \"" + part + "\" in: " + e.getMessage());
    }

    @Test
    void familiesReadIntoTheirOptionsAndMatchTheBuilder() {
        StoreConfig c = read("""
                <store>
                  <memtable bytes="8MiB"/>
                  <families>
                    <family name="users">
                      <memtable bytes="1MiB" maxImmutable="3"/>
                      <mergePolicy name="no-merge"/>
                    </family>
                    <family name="orders.v2"/>
                  </families>
                </store>
                """);
        assertEquals(List.of("users", "orders.v2"), List.copyOf(c.familyOptions().keySet()));
        FamilyOptions users = c.familyOptions().get("users");
        assertEquals(1 << 20, users.memtableBytes());
        assertEquals(3, users.maxImmutableMemtables());
        assertEquals("no-merge", users.mergePolicy());
        assertEquals(FamilyOptions.defaults(), c.familyOptions().get("orders.v2"));
        StoreConfig built = StoreConfig.builder().memtableBytes(8 << 20)
                .family("users", FamilyOptions.builder().memtableBytes(1 << 20).maxImmutableMemtables(3)
                        .mergePolicy("no-merge", Map.of()).build())
                .family("orders.v2", FamilyOptions.defaults()).build();
        assertEquals(built.familyOptions(), c.familyOptions());
        // A family's effective configuration: its own memtable, the store's everything else.
        StoreConfig effective = users.applyTo(c);
        assertEquals(1 << 20, effective.memtableBytes());
        assertEquals(c.pageSize(), effective.pageSize());
        assertEquals(8 << 20, c.familyOptions().get("orders.v2").applyTo(c).memtableBytes());
    }

    @Test
    void duplicateNamesUnknownElementsAndBadValuesAreErrorsAtTheirElement() {
        assertError("column family \"a\" is given twice; first at line 3", """
                <store>
                  <families>
                    <family name="a"/>
                    <family name="a"/>
                  </families>
                </store>
                """);
        assertError("wal", """
                <store>
                  <families>
                    <family name="a"><wal mode="sync"/></family>
                  </families>
                </store>
                """);
        assertError("family", """
                <store>
                  <family name="a"/>
                </store>
                """);
        assertError("default", """
                <store>
                  <families><family name="default"/></families>
                </store>
                """);
        assertError("test.xml:3:", """
                <store>
                  <families>
                    <family name="bad name"/>
                  </families>
                </store>
                """);
        assertError("unknown merge policy 'nope'", """
                <store>
                  <families><family name="a"><mergePolicy name="nope"/></family></families>
                </store>
                """);
        assertError("memtableBytes", """
                <store>
                  <families><family name="a"><memtable bytes="10"/></family></families>
                </store>
                """);
        assertError("name", """
                <store>
                  <families><family/></families>
                </store>
                """);
    }
}
