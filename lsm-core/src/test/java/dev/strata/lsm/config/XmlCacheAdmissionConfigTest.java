package dev.strata.lsm.config;

import dev.strata.lsm.CacheAdmission;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.SharedResources;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <blockCache admission="second-miss|every-miss"/>} and the builders' equivalents. */
class XmlCacheAdmissionConfigTest {

    @Test
    void theDefaultIsSecondMiss() {
        assertEquals(CacheAdmission.SECOND_MISS, StoreConfig.defaults().blockCacheAdmission());
        assertEquals(CacheAdmission.SECOND_MISS,
                XmlConfigTest.read("<store><blockCache bytes=\"8MiB\"/></store>").blockCacheAdmission());
        try (SharedResources shared = SharedResources.builder().build()) {
            assertTrue(!shared.toString().contains("blockCacheAdmission"), shared.toString());
        }
    }

    @Test
    void xmlAndBuilderAgree() {
        StoreConfig c = XmlConfigTest.read("<store><blockCache bytes=\"8MiB\" admission=\"every-miss\"/></store>");
        assertEquals(CacheAdmission.EVERY_MISS, c.blockCacheAdmission());
        StoreConfig b = StoreConfig.builder().blockCacheBytes(8 << 20).blockCacheAdmission("EVERY-MISS").build();
        assertEquals(c.toString(), b.toString());
        assertTrue(c.toString().contains("blockCacheAdmission=every-miss"), c.toString());
        assertEquals(CacheAdmission.EVERY_MISS, b.toBuilder().build().blockCacheAdmission());
        assertEquals(CacheAdmission.SECOND_MISS, XmlConfigTest.read(
                "<store><blockCache admission=\"second-miss\"/></store>").blockCacheAdmission());
        try (SharedResources shared = SharedResources.builder().blockCacheAdmission(CacheAdmission.EVERY_MISS)
                .build()) {
            assertTrue(shared.toString().contains("blockCacheAdmission=every-miss"), shared.toString());
        }
    }

    @Test
    void anUnknownAdmissionIsNamed() {
        ConfigException xml = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<blockCache admission=\"third-miss\"/>\n</store>"));
        assertTrue(xml.getMessage().contains("test.xml:2:") && xml.getMessage().contains("third-miss"),
                xml.getMessage());
        ConfigException name = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().blockCacheAdmission("lru"));
        assertTrue(name.getMessage().contains("'lru'") && name.getMessage().contains("second-miss or every-miss"),
                name.getMessage());
        ConfigException none = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().blockCacheAdmission((CacheAdmission) null).build());
        assertTrue(none.getMessage().contains("blockCacheAdmission"), none.getMessage());
        assertThrows(ConfigException.class, () -> SharedResources.builder().blockCacheAdmission(null));
    }
}
