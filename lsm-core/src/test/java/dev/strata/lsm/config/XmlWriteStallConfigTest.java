package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <writeStall delayedWriteRate="..."/>} and {@code StoreConfig.Builder.delayedWriteRate} (issue 36). */
class XmlWriteStallConfigTest {

    @Test
    void theDefaultIsRocksDbsSixteenMebibytesASecond() {
        assertEquals(16L << 20, StoreConfig.defaults().delayedWriteRate());
        assertEquals(StoreConfig.DEFAULT_DELAYED_WRITE_RATE, XmlConfigTest.read("<store/>").delayedWriteRate());
    }

    @Test
    void xmlAndBuilderAgree() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <writeStall delayedWriteRate="4MiB"/>
                </store>
                """);
        assertEquals(4L << 20, c.delayedWriteRate());
        StoreConfig b = StoreConfig.builder().delayedWriteRate(4L << 20).build();
        assertEquals(c.toString(), b.toString());
        assertTrue(b.toString().contains("delayedWriteRate=4194304"), b.toString());
        assertEquals(4L << 20, b.toBuilder().build().delayedWriteRate());
    }

    @Test
    void ratesOutOfRangeAreConfigErrorsNamingTheSettingAndTheRange() {
        for (long bad : new long[] {0, -1, (16L << 10) - 1, (1L << 40) + 1}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> StoreConfig.builder().delayedWriteRate(bad).build());
            assertEquals("delayedWriteRate", e.setting());
            assertTrue(e.getMessage().contains("bad value " + bad + " for delayedWriteRate")
                    && e.getMessage().contains("from 16384 (16KiB) to 1099511627776 (1TiB)"), e.getMessage());
        }
        assertEquals(16L << 10, StoreConfig.builder().delayedWriteRate(16L << 10).build().delayedWriteRate());
        assertEquals(1L << 40, StoreConfig.builder().delayedWriteRate(1L << 40).build().delayedWriteRate());
    }

    @Test
    void badXmlValuesAreReportedWhereTheyAre() {
        ConfigException low = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<writeStall delayedWriteRate=\"1KiB\"/>\n</store>"));
        assertTrue(low.getMessage().contains("test.xml:2:") && low.getMessage().contains("delayedWriteRate")
                && low.getMessage().contains("16KiB"), low.getMessage());
        ConfigException form = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<writeStall delayedWriteRate=\"fast\"/>\n</store>"));
        assertTrue(form.getMessage().contains("test.xml:2:") && form.getMessage().contains("fast"), form.getMessage());
    }
}
