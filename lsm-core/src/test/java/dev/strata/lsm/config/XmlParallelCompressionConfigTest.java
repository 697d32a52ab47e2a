package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.sstable.TableOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <sstable parallelCompression="true|false"/>} and the builder's equivalent. */
class XmlParallelCompressionConfigTest {

    @Test
    void pagesAreCompressedOnTheBuildingThreadByDefault() {
        assertFalse(StoreConfig.defaults().parallelCompression());
        assertFalse(XmlConfigTest.read("<store><sstable compression=\"lz4\"/></store>").parallelCompression());
        assertFalse(TableOptions.of(StoreConfig.defaults()).parallelCompression());
    }

    @Test
    void xmlAndBuilderAgreeAndReachEveryTablesOptions() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <sstable compression="lz4" bottommostCompression="zstd" parallelCompression="true"/>
                </store>
                """);
        assertTrue(c.parallelCompression());
        assertTrue(TableOptions.of(c).parallelCompression());
        assertTrue(TableOptions.of(c, 3, true).parallelCompression(), "the bottommost codec's tables too");
        StoreConfig b = StoreConfig.builder().compression("lz4").bottommostCompression("zstd")
                .parallelCompression(true).build();
        assertEquals(c.toString(), b.toString());
        assertTrue(b.toBuilder().build().parallelCompression());
        assertFalse(XmlConfigTest.read("<store><sstable parallelCompression=\"0\"/></store>").parallelCompression());
        assertTrue(XmlConfigTest.read("<store><sstable parallelCompression=\"1\"/></store>").parallelCompression());
    }

    @Test
    void aValueThatIsNotABooleanIsReportedWhereItIs() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<sstable parallelCompression=\"yes\"/>\n</store>"));
        assertTrue(e.getMessage().contains("test.xml:2:") && e.getMessage().contains("yes"), e.getMessage());
    }
}
