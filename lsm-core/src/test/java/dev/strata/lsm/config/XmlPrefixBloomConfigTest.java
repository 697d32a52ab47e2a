package dev.strata.lsm.config;

import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.PrefixExtractor;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <sstable prefixBloom="fixed:N"/>} and its builder equivalent. */
class XmlPrefixBloomConfigTest {

    @Test
    void fixedPrefixFromXmlEqualsTheBuilders() {
        StoreConfig c = XmlConfigTest.read("<store><sstable prefixBloom=\"fixed:4\"/></store>");
        assertEquals(PrefixExtractor.fixed(4), c.prefixExtractor());
        assertEquals("fixed:4", TableOptions.of(c).prefixBloomName());
        assertEquals("fixed:4", TableOptions.of(c, 3, true).prefixBloomName(), "every level's tables carry it");
        StoreConfig b = StoreConfig.builder().prefixExtractor(PrefixExtractor.fixed(4)).build();
        assertEquals(c.toString(), b.toString());
    }

    @Test
    void noPrefixBloomByDefault() {
        assertNull(XmlConfigTest.read("<store><sstable pageSize=\"4096\"/></store>").prefixExtractor());
        assertEquals("", TableOptions.of(StoreConfig.defaults()).prefixBloomName());
    }

    @Test
    void badValuesAreConfigErrorsNamingTheAttribute() {
        for (String bad : new String[] {"fixed:0", "fixed:x", "fixed:", "fixed", "capped:4", "fixed:256", "fixed:-1"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                    "<store>\n<sstable prefixBloom=\"" + bad + "\"/>\n</store>"), bad);
            assertTrue(e.getMessage().contains("prefixBloom"), e.getMessage());
            assertTrue(e.getMessage().contains("test.xml:2:"), e.getMessage());
        }
    }

    @Test
    void aPrefixBloomNeedsBloomFilters() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store><sstable bloomBitsPerKey=\"0\" prefixBloom=\"fixed:2\"/></store>"));
        assertTrue(e.getMessage().contains("prefixBloom"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PrefixExtractor.fixed(0));
    }
}
