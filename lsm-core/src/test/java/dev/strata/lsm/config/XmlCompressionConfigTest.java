package dev.strata.lsm.config;

import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.Compression;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <sstable compression=... bottommostCompression=... compressionLevel=...>} and per-level {@code <compression>}. */
class XmlCompressionConfigTest {

    @Test
    void codecsPerStoreLevelAndBottommost() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <sstable pageSize="4096" compression="lz4" bottommostCompression="zstd" compressionLevel="5">
                    <compression level="0" codec="none"/>
                    <compression level="3" codec="snappy"/>
                  </sstable>
                </store>
                """);
        assertEquals(Compression.LZ4, c.compression());
        assertEquals(Compression.ZSTD, c.bottommostCompression());
        assertEquals(5, c.compressionLevel());
        assertEquals(Map.of(0, Compression.NONE, 3, Compression.SNAPPY), c.levelCompression());
        assertEquals(Compression.NONE, TableOptions.of(c, 0, false).compression());
        assertEquals(Compression.LZ4, TableOptions.of(c, 1, false).compression());
        assertEquals(Compression.SNAPPY, TableOptions.of(c, 3, false).compression());
        assertEquals(Compression.ZSTD, TableOptions.of(c, 3, true).compression(), "bottommost wins over the level's codec");
        assertEquals(5, TableOptions.of(c, 2, true).compressionLevel());
        // The builder says the same.
        StoreConfig b = StoreConfig.builder().compression("lz4").bottommostCompression(Compression.ZSTD)
                .compressionLevel(5).levelCompression(0, "none").levelCompression(3, Compression.SNAPPY).build();
        assertEquals(c.toString(), b.toString());
    }

    @Test
    void defaultIsNone() {
        StoreConfig c = XmlConfigTest.read("<store><sstable pageSize=\"4096\"/></store>");
        assertEquals(Compression.NONE, c.compression());
        assertNull(c.bottommostCompression());
        assertEquals(Compression.NONE, TableOptions.of(c, 5, true).compression());
        assertEquals(Compression.NONE, TableOptions.of(StoreConfig.defaults()).compression());
    }

    @Test
    void badCodecsAndLevelsAreReportedWhereTheyAre() {
        ConfigException unknown = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<sstable compression=\"brotli\"/>\n</store>"));
        assertTrue(unknown.getMessage().contains("test.xml:2:"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("brotli"), unknown.getMessage());
        ConfigException level = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<sstable compression=\"zstd\" compressionLevel=\"40\"/>\n</store>"));
        assertTrue(level.getMessage().contains("compressionLevel"), level.getMessage());
        ConfigException twice = assertThrows(ConfigException.class, () -> XmlConfigTest.read("""
                <store>
                  <sstable>
                    <compression level="1" codec="lz4"/>
                    <compression level="1" codec="zstd"/>
                  </sstable>
                </store>
                """));
        assertTrue(twice.getMessage().contains("given twice"), twice.getMessage());
        ConfigException missing = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store><sstable><compression level=\"1\"/></sstable></store>"));
        assertTrue(missing.getMessage().contains("codec"), missing.getMessage());
        assertThrows(ConfigException.class, () -> StoreConfig.builder().compression("gzip"));
        assertThrows(ConfigException.class, () -> StoreConfig.builder().levelCompression(-1, "lz4").build());
    }
}
