package dev.strata.lsm.config;

import dev.strata.lsm.Compression;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.sstable.TableOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <sstable lz4Acceleration="N"/>} and the builder's equivalent. */
class XmlLz4AccelerationConfigTest {

    @Test
    void lz4CompressesAtItsOwnDefaultAccelerationUnlessTold() {
        assertEquals(1, StoreConfig.defaults().lz4Acceleration());
        assertEquals(1, XmlConfigTest.read("<store><sstable compression=\"lz4\"/></store>").lz4Acceleration());
        assertEquals(1, TableOptions.of(StoreConfig.defaults()).lz4Acceleration());
        assertEquals(1, TableOptions.defaults().lz4Acceleration());
    }

    @Test
    void xmlAndBuilderAgreeAndReachEveryTablesOptions() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <sstable compression="lz4" bottommostCompression="zstd" compressionLevel="5" lz4Acceleration="4"/>
                </store>
                """);
        assertEquals(4, c.lz4Acceleration());
        assertEquals(5, c.compressionLevel(), "zstd's level is its own setting");
        assertEquals(4, TableOptions.of(c).lz4Acceleration());
        assertEquals(4, TableOptions.of(c, 3, true).lz4Acceleration(), "every level's tables carry it");
        assertEquals(5, TableOptions.of(c, 3, true).compressionLevel());
        StoreConfig b = StoreConfig.builder().compression("lz4").bottommostCompression("zstd").compressionLevel(5)
                .lz4Acceleration(4).build();
        assertEquals(c.toString(), b.toString());
        assertEquals(4, b.toBuilder().build().lz4Acceleration());
    }

    @Test
    void anAccelerationOutOfRangeIsRefusedNamingTheSetting() {
        for (String bad : new String[] {"0", "-2", "65538"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                    "<store><sstable compression=\"lz4\" lz4Acceleration=\"" + bad + "\"/></store>"));
            assertTrue(e.getMessage().contains("lz4Acceleration") && e.getMessage().contains(bad), e.getMessage());
        }
        ConfigException e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().lz4Acceleration(0).build());
        assertTrue(e.getMessage().contains("lz4Acceleration"), e.getMessage());
        assertEquals(Compression.MAX_LZ4_ACCELERATION,
                StoreConfig.builder().lz4Acceleration(Compression.MAX_LZ4_ACCELERATION).build().lz4Acceleration());
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class,
                () -> TableOptions.defaults().withLz4Acceleration(0));
        assertTrue(t.getMessage().contains("lz4 acceleration"), t.getMessage());
    }

    @Test
    void aValueThatIsNotANumberIsReportedWhereItIs() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<sstable lz4Acceleration=\"fast\"/>\n</store>"));
        assertTrue(e.getMessage().contains("test.xml:2:") && e.getMessage().contains("fast"), e.getMessage());
    }
}
