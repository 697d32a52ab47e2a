package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <background subcompactions="N"/>} and {@code StoreConfig.Builder.subcompactions} (issue 36). */
class XmlSubcompactionsConfigTest {

    @Test
    void theDefaultIsTheDocumentedOne() {
        assertEquals(StoreConfig.DEFAULT_SUBCOMPACTIONS, StoreConfig.defaults().subcompactions());
        assertEquals(StoreConfig.DEFAULT_SUBCOMPACTIONS, XmlConfigTest.read("<store/>").subcompactions());
        assertTrue(!StoreConfig.defaults().toString().contains("subcompactions"), "a default is not printed");
    }

    @Test
    void xmlAndBuilderAgree() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <background threads="2" subcompactions="3"/>
                </store>
                """);
        assertEquals(3, c.subcompactions());
        StoreConfig b = StoreConfig.builder().subcompactions(3).build();
        assertEquals(c.toString(), b.toString());
        assertTrue(b.toString().contains("subcompactions=3"), b.toString());
        assertEquals(3, b.toBuilder().build().subcompactions());
        assertEquals(64, StoreConfig.builder().subcompactions(64).build().subcompactions());
    }

    @Test
    void countsOutOfRangeAreConfigErrorsNamingTheSettingAndTheRange() {
        for (int bad : new int[] {0, -1, 65, Integer.MIN_VALUE}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> StoreConfig.builder().subcompactions(bad).build());
            assertEquals("subcompactions", e.setting());
            assertTrue(e.getMessage().contains("bad value " + bad + " for subcompactions")
                    && e.getMessage().contains("from 1 (never split a merge) to 64"), e.getMessage());
        }
    }

    @Test
    void badXmlValuesAreReportedWhereTheyAre() {
        ConfigException zero = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<background subcompactions=\"0\"/>\n</store>"));
        assertTrue(zero.getMessage().contains("test.xml:2:") && zero.getMessage().contains("subcompactions"),
                zero.getMessage());
        ConfigException form = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<background subcompactions=\"many\"/>\n</store>"));
        assertTrue(form.getMessage().contains("test.xml:2:") && form.getMessage().contains("many"), form.getMessage());
    }
}
