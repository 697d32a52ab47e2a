package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.ParallelCompression;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.sstable.TableOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <sstable parallelCompression="auto|true|false"/>} and the builder's equivalent. */
class XmlParallelCompressionConfigTest {

    @Test
    void pagesGoToThePoolOnlyWhileACoreIsIdleByDefault() {
        assertEquals(ParallelCompression.AUTO, StoreConfig.defaults().parallelCompression());
        assertEquals(ParallelCompression.AUTO,
                XmlConfigTest.read("<store><sstable compression=\"lz4\"/></store>").parallelCompression());
        assertEquals(ParallelCompression.AUTO, TableOptions.of(StoreConfig.defaults()).parallelCompression());
        assertEquals(ParallelCompression.AUTO, TableOptions.defaults().parallelCompression());
    }

    @Test
    void xmlAndBuilderAgreeAndReachEveryTablesOptions() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <sstable compression="lz4" bottommostCompression="zstd" parallelCompression="true"/>
                </store>
                """);
        assertEquals(ParallelCompression.ON, c.parallelCompression());
        assertEquals(ParallelCompression.ON, TableOptions.of(c).parallelCompression());
        assertEquals(ParallelCompression.ON, TableOptions.of(c, 3, true).parallelCompression(),
                "the bottommost codec's tables too");
        StoreConfig b = StoreConfig.builder().compression("lz4").bottommostCompression("zstd")
                .parallelCompression(true).build();
        assertEquals(c.toString(), b.toString());
        assertEquals(ParallelCompression.ON, b.toBuilder().build().parallelCompression());
        assertEquals(ParallelCompression.OFF, XmlConfigTest.read(
                "<store><sstable parallelCompression=\"0\"/></store>").parallelCompression());
        assertEquals(ParallelCompression.OFF, XmlConfigTest.read(
                "<store><sstable parallelCompression=\"false\"/></store>").parallelCompression());
        assertEquals(ParallelCompression.ON, XmlConfigTest.read(
                "<store><sstable parallelCompression=\"1\"/></store>").parallelCompression());
        assertEquals(ParallelCompression.AUTO, XmlConfigTest.read(
                "<store><sstable parallelCompression=\" auto \"/></store>").parallelCompression());
        assertEquals(ParallelCompression.OFF, StoreConfig.builder().parallelCompression("false").build()
                .parallelCompression());
        assertEquals(ParallelCompression.AUTO, StoreConfig.builder().parallelCompression(true)
                .parallelCompression(ParallelCompression.AUTO).build().parallelCompression());
    }

    @Test
    void aValueThatIsNeitherAutoNorABooleanIsReportedWhereItIs() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<sstable parallelCompression=\"yes\"/>\n</store>"));
        assertTrue(e.getMessage().contains("test.xml:2:") && e.getMessage().contains("yes"), e.getMessage());
        ConfigException b = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().parallelCompression("sometimes"));
        assertTrue(b.getMessage().contains("parallelCompression") && b.getMessage().contains("sometimes")
                && b.getMessage().contains("auto"), b.getMessage());
        assertThrows(ConfigException.class,
                () -> StoreConfig.builder().parallelCompression((ParallelCompression) null));
    }
}
