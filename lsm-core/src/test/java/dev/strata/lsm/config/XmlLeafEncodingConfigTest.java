package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.sstable.TableOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code <sstable leafEncoding="prefix|plain" restartInterval="N"/>} and the builder's equivalents. */
class XmlLeafEncodingConfigTest {

    @Test
    void defaultsArePrefixLeavesWithARestartEverySixteenCells() {
        StoreConfig c = XmlConfigTest.read("<store><sstable pageSize=\"4096\"/></store>");
        assertEquals(LeafEncoding.PREFIX, c.leafEncoding());
        assertEquals(16, c.restartInterval());
        assertEquals(LeafEncoding.PREFIX, TableOptions.of(StoreConfig.defaults()).leafEncoding());
        assertEquals(16, TableOptions.of(StoreConfig.defaults(), 3, true).restartInterval());
    }

    @Test
    void encodingAndIntervalFromXmlAndBuilderAgree() {
        StoreConfig c = XmlConfigTest.read("""
                <store>
                  <sstable pageSize="8192" leafEncoding="prefix" restartInterval="32" compression="lz4"/>
                </store>
                """);
        assertEquals(32, c.restartInterval());
        TableOptions t = TableOptions.of(c, 2, false);
        assertEquals(LeafEncoding.PREFIX, t.leafEncoding());
        assertEquals(32, t.restartInterval());
        StoreConfig b = StoreConfig.builder().pageSize(8192).leafEncoding("prefix").restartInterval(32)
                .compression("lz4").build();
        assertEquals(c.toString(), b.toString());
        StoreConfig plain = XmlConfigTest.read("<store><sstable leafEncoding=\"plain\"/></store>");
        assertEquals(LeafEncoding.PLAIN, plain.leafEncoding());
        assertEquals(LeafEncoding.PLAIN, TableOptions.of(plain).leafEncoding());
        assertEquals(LeafEncoding.PLAIN, StoreConfig.builder().leafEncoding(LeafEncoding.PLAIN).build()
                .toBuilder().build().leafEncoding());
    }

    @Test
    void badValuesAreReportedWhereTheyAre() {
        for (String interval : new String[] {"0", "-3", "1025"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                    "<store>\n<sstable restartInterval=\"" + interval + "\"/>\n</store>"));
            assertTrue(e.getMessage().contains("test.xml:2:") && e.getMessage().contains("restartInterval")
                    && e.getMessage().contains("from 1 to 1024"), e.getMessage());
        }
        ConfigException unknown = assertThrows(ConfigException.class, () -> XmlConfigTest.read(
                "<store>\n<sstable leafEncoding=\"delta\"/>\n</store>"));
        assertTrue(unknown.getMessage().contains("test.xml:2:") && unknown.getMessage().contains("delta"),
                unknown.getMessage());
        ConfigException builder = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().restartInterval(0).build());
        assertTrue(builder.getMessage().contains("bad value 0 for restartInterval"), builder.getMessage());
        assertThrows(ConfigException.class, () -> StoreConfig.builder().leafEncoding("delta"));
        assertThrows(ConfigException.class, () -> StoreConfig.builder().leafEncoding((LeafEncoding) null).build());
    }
}
