package dev.strata.lsm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Documents that are valid read into the expected {@link StoreConfig}. */
class XmlConfigTest {
    @TempDir
    Path dir;

    static StoreConfig read(String xml) {
        return XmlConfig.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "test.xml");
    }

    @Test
    void fullDocumentSetsEveryValue() {
        StoreConfig c = read("""
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- every element, none at its default -->
                <store>
                  <memtable bytes="32MiB" maxImmutable="4"/>
                  <wal mode="sync"/>
                  <sstable pageSize="8KiB" bloomBitsPerKey="12"/>
                  <blockCache bytes="500KB"/>
                  <background threads="3"/>
                  <limits maxValueBytes="16MiB"/>
                  <manifest rewriteBytes="1GiB"/>
                  <obsoleteFiles deleteBatchBytes="200MB"/>
                  <mergePolicy name="size-tiered">
                    <param name="fanout" value="8"/>
                    <param name="size-ratio" value="1.5"/>
                    <param name="max-runs" value="40"/>
                  </mergePolicy>
                </store>
                """);
        assertEquals(32L << 20, c.memtableBytes());
        assertEquals(4, c.maxImmutableMemtables());
        assertEquals(WalSyncMode.SYNC, c.walMode());
        assertEquals(8192, c.pageSize());
        assertEquals(12, c.bloomBitsPerKey());
        assertEquals(500_000L, c.blockCacheBytes());
        assertEquals(3, c.backgroundThreads());
        assertEquals(16 << 20, c.maxValueBytes());
        assertEquals(1L << 30, c.manifestRewriteBytes());
        assertEquals(200_000_000L, c.obsoleteDeleteBatchBytes());
        assertEquals("size-tiered", c.mergePolicy());
        Map<String, String> params = new LinkedHashMap<>();
        params.put("fanout", "8");
        params.put("size-ratio", "1.5");
        params.put("max-runs", "40");
        assertEquals(params, c.mergePolicyParams());
        // Document order is kept, so messages and dumps list params as the user wrote them.
        assertEquals(List.of("fanout", "size-ratio", "max-runs"), List.copyOf(c.mergePolicyParams().keySet()));
    }

    @Test
    void elementsMayComeInAnyOrder() {
        StoreConfig c = read("""
                <store>
                  <mergePolicy name="no-merge"/>
                  <background threads="5"/>
                  <memtable maxImmutable="3"/>
                </store>
                """);
        assertEquals("no-merge", c.mergePolicy());
        assertEquals(Map.of(), c.mergePolicyParams());
        assertEquals(5, c.backgroundThreads());
        assertEquals(3, c.maxImmutableMemtables());
        // The attribute left out keeps its default.
        assertEquals(StoreConfig.DEFAULT_MEMTABLE_BYTES, c.memtableBytes());
    }

    @Test
    void emptyStoreGivesTheDefaults() {
        assertSameValues(StoreConfig.defaults(), read("<store/>"));
        assertSameValues(StoreConfig.defaults(), read("<store>\n  <memtable/>\n  <wal/>\n</store>"));
    }

    @Test
    void policyWithoutParamsKeepsItsDefaults() {
        StoreConfig c = read("<store><mergePolicy name=\"size-tiered\"/></store>");
        assertEquals("size-tiered", c.mergePolicy());
        assertEquals(Map.of(), c.mergePolicyParams());
    }

    @ParameterizedTest
    @CsvSource({
            "none, NONE",
            "async, ASYNC",
            "sync, SYNC",
            "' sync ', SYNC"
    })
    void walModesMapToTheEnum(String xml, WalSyncMode expected) {
        assertEquals(expected, read("<store><wal mode=\"" + xml + "\"/></store>").walMode());
    }

    @ParameterizedTest
    @CsvSource({
            "<wal mode=\"none\"/>, true",
            "<wal mode=\"async\"/>, false",
            "<wal mode=\"sync\"/>, false",
            "<wal mode=\"none\" atomicFlush=\"false\"/>, false",
            "<wal mode=\"async\" atomicFlush=\"true\"/>, true",
            "<wal atomicFlush=\"1\"/>, true",
            "'', false"
    })
    void atomicFlushIsOnInWalModeNoneUnlessSet(String wal, boolean expected) {
        assertEquals(expected, read("<store>" + wal + "</store>").atomicFlush());
        assertEquals(expected, read("<store>" + wal + "</store>").toBuilder().build().atomicFlush(),
                "toBuilder keeps the setting");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "<store/>| false",
            "<store><memory/></store>| false",
            "<store><memory offHeap=\"false\"/></store>| false",
            "<store><memory offHeap=\"0\"/></store>| false",
            "<store><memory offHeap=\"true\"/></store>| true",
            "<store><memory offHeap=\"1\"/></store>| true",
            "<store><blockCache bytes=\"1MiB\"/><memory offHeap=\"true\"/></store>| true",
    })
    void memoryOffHeapIsReadAndKept(String xml, boolean expected) {
        StoreConfig c = read(xml);
        assertEquals(expected, c.offHeap());
        assertEquals(expected, c.toBuilder().build().offHeap(), "toBuilder keeps the setting");
        assertEquals(expected, StoreConfig.builder().offHeap(expected).build().offHeap());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "TRUE", "on", "", "2"})
    void aBadOffHeapValueIsAnErrorNamingTheAttribute(String bad) {
        var e = assertThrows(dev.strata.lsm.ConfigException.class,
                () -> read("<store><memory offHeap=\"" + bad + "\"/></store>"));
        assertTrue(e.getMessage().contains("offHeap"), e.getMessage());
        assertTrue(e.getMessage().contains("test.xml"), e.getMessage());
    }

    @Test
    void memoryIsGivenAtMostOnce() {
        var e = assertThrows(dev.strata.lsm.ConfigException.class,
                () -> read("<store><memory offHeap=\"true\"/><memory offHeap=\"false\"/></store>"));
        assertTrue(e.getMessage().contains("memory"), e.getMessage());
    }

    @Test
    void aBadAtomicFlushValueIsASchemaError() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.strata.lsm.ConfigException.class,
                () -> read("<store><wal atomicFlush=\"yes\"/></store>"));
        assertTrue(e.getMessage().contains("atomicFlush"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
            "4096, 4096",
            "8192B, 8192",
            "64MiB, 67108864",
            "64mib, 67108864",
            "64M, 67108864",
            "'64 MiB', 67108864",
            "' 8K ', 8192",
            "1GiB, 1073741824",
            "1G, 1073741824",
            "500KB, 500000",
            "3MB, 3000000",
            "1TiB, 1099511627776"
    })
    void byteSizesAcceptUnits(String xml, long expected) {
        assertEquals(expected, read("<store><memtable bytes=\"" + xml + "\"/></store>").memtableBytes());
        assertEquals(expected, read("<store><blockCache bytes=\"" + xml + "\"/></store>").blockCacheBytes());
        assertEquals(expected, read("<store><manifest rewriteBytes=\"" + xml + "\"/></store>")
                .manifestRewriteBytes());
    }

    @Test
    void pageSizeAndMaxValueBytesAcceptUnitsToo() {
        StoreConfig c = read("<store><sstable pageSize=\"64KiB\"/><limits maxValueBytes=\"1000MiB\"/></store>");
        assertEquals(65536, c.pageSize());
        assertEquals(1000 << 20, c.maxValueBytes());
    }

    @Test
    void bloomFiltersCanBeTurnedOffAndTheCacheSetToZero() {
        StoreConfig c = read("<store><sstable bloomBitsPerKey=\"0\"/><blockCache bytes=\"0\"/></store>");
        assertEquals(0, c.bloomBitsPerKey());
        assertEquals(0, c.blockCacheBytes());
    }

    @Test
    void readsAFileAndNamesItInErrors() throws IOException {
        Path good = dir.resolve("store.xml");
        Files.writeString(good, "<store>\n  <background threads=\"7\"/>\n</store>\n");
        assertEquals(7, XmlConfig.read(good).backgroundThreads());

        Path bad = dir.resolve("bad.xml");
        Files.writeString(bad, "<store>\n  <background threads=\"70\"/>\n</store>\n");
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfig.read(bad));
        assertTrue(e.getMessage().startsWith(bad + ":2:29: "), e.getMessage());
    }

    @Test
    void missingFileIsAConfigExceptionNamingThePath() {
        Path missing = dir.resolve("nowhere").resolve("store.xml");
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfig.read(missing));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void aDirectoryIsAConfigExceptionNamingThePath() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfig.read(dir));
        assertTrue(e.getMessage().startsWith(dir + ": "), e.getMessage());
    }

    @Test
    void encodingComesFromTheXmlDeclaration() {
        String xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<store><background threads=\"9\"/></store>";
        StoreConfig c = XmlConfig.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_16)), "utf16.xml");
        assertEquals(9, c.backgroundThreads());
    }

    @Test
    void theStreamIsReadButNotClosed() {
        boolean[] closed = {false};
        InputStream in = new FilterInputStream(new ByteArrayInputStream("<store/>".getBytes(StandardCharsets.UTF_8))) {
            @Override
            public void close() throws IOException {
                closed[0] = true;
                super.close();
            }
        };
        XmlConfig.read(in, "stream");
        assertFalse(closed[0]);
    }

    @Test
    void theShippedSchemaIsOnTheClassPath() {
        assertTrue(XmlConfig.class.getResource("strata-config-1.xsd") != null);
    }

    private static void assertSameValues(StoreConfig expected, StoreConfig actual) {
        assertEquals(expected.memtableBytes(), actual.memtableBytes());
        assertEquals(expected.maxImmutableMemtables(), actual.maxImmutableMemtables());
        assertEquals(expected.walMode(), actual.walMode());
        assertEquals(expected.pageSize(), actual.pageSize());
        assertEquals(expected.bloomBitsPerKey(), actual.bloomBitsPerKey());
        assertEquals(expected.blockCacheBytes(), actual.blockCacheBytes());
        assertEquals(expected.backgroundThreads(), actual.backgroundThreads());
        assertEquals(expected.maxValueBytes(), actual.maxValueBytes());
        assertEquals(expected.manifestRewriteBytes(), actual.manifestRewriteBytes());
        assertEquals(expected.mergePolicy(), actual.mergePolicy());
        assertEquals(expected.mergePolicyParams(), actual.mergePolicyParams());
    }
}
