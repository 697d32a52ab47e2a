package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.Compression;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.merge.MergingIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Format-3 tables checked in per codec ({@code sstable/format3-<codec>.sst}, written by this
 * build from a fixed seed; regenerate with {@code -Dstrata.writeFixtures=<dir>}) beside the
 * format-1 and format-2 fixtures: each opens and reads identically, and tables of all three
 * formats and every codec merge into one new table; format-2 and uncompressed format-3
 * tables still merge in place, keeping their format.
 */
class FormatThreeFixtureTest {
    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    static List<InternalEntry> fixtureEntries() {
        return CompressedTableTest.compressibleEntries(new Random(20261126), 1500, 0.1, 4096);
    }

    static String resource(Compression codec) {
        return "/sstable/format3-" + codec.configName() + ".sst";
    }

    /** The codecs a prefix-compressed (leaf encoding 1) fixture is checked in for. */
    static final List<Compression> PREFIX_FIXTURE_CODECS = List.of(Compression.NONE, Compression.LZ4);

    /** The format-3 fixture with prefix-compressed leaves (leaf encoding 1) and page codec {@code codec}. */
    static String prefixResource(Compression codec) {
        return "/sstable/format3-prefix-" + codec.configName() + ".sst";
    }

    private Path copy(String resource, String name) throws IOException {
        Path path = dir.resolve(name);
        try (InputStream in = FormatThreeFixtureTest.class.getResourceAsStream(resource)) {
            assertNotNull(in, "test resource " + resource + " is missing");
            Files.copy(in, path);
        }
        return path;
    }

    /** Writes the fixtures into the directory named by -Dstrata.writeFixtures (a no-op without it). */
    @Test
    void writeFixturesWhenAsked() throws IOException {
        String out = System.getProperty("strata.writeFixtures");
        if (out == null) {
            return;
        }
        for (Compression c : Compression.values()) {
            // The first format-3 fixtures have plain leaves (leaf encoding 0).
            Path path = Path.of(out).resolve("format3-" + c.configName() + ".sst");
            Files.deleteIfExists(path);
            fixture.write(path, TableOptions.defaults().withCompression(c).withLeafEncoding(LeafEncoding.PLAIN,
                    TableOptions.DEFAULT_RESTART_INTERVAL), fixtureEntries());
        }
        for (Compression c : PREFIX_FIXTURE_CODECS) {
            Path path = Path.of(out).resolve(prefixResource(c).substring("/sstable/".length()));
            Files.deleteIfExists(path);
            fixture.write(path, TableOptions.defaults().withCompression(c), fixtureEntries());
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void formatThreeFixtureOpensAndReadsIdentically(Compression codec) throws IOException {
        Path path = copy(resource(codec), "f3.sst");
        List<InternalEntry> expected = fixtureEntries();
        try (PageFile file = fixture.openForRead(path)) {
            for (BlockCache cache : List.of(BlockCache.disabled(), BlockCache.create(4 << 20))) {
                SSTableReader reader = SSTableReader.open(file, file.size() - 4096, 1, cache);
                Footer f = reader.footer();
                assertEquals(3, f.formatVersion());
                assertEquals(LeafEncoding.PLAIN, f.leafEncoding());
                assertEquals(codec, f.compression());
                assertEquals(codec != Compression.NONE, f.packed());
                assertEquals(expected.size(), f.entryCount());
                assertTrue(f.height() >= 2);
                CompressedTableTest.assertEntries(expected, reader);
                for (InternalEntry e : expected) {
                    assertEquals(e, reader.get(e.key(), e.seqno()));
                }
            }
        }
    }

    @Test
    void prefixLeafFixturesOpenReadAndMergeInPlaceKeepingTheirEncoding() throws IOException {
        List<InternalEntry> expected = fixtureEntries();
        for (Compression codec : PREFIX_FIXTURE_CODECS) {
            Path path = copy(prefixResource(codec), "prefix-" + codec + ".sst");
            try (PageFile file = fixture.openForRead(path)) {
                for (BlockCache cache : List.of(BlockCache.disabled(), BlockCache.create(4 << 20))) {
                    SSTableReader reader = SSTableReader.open(file, file.size() - 4096, 1, cache);
                    Footer f = reader.footer();
                    assertEquals(3, f.formatVersion());
                    assertEquals(LeafEncoding.PREFIX, f.leafEncoding(), codec.toString());
                    assertEquals(codec, f.compression());
                    assertEquals(expected.size(), f.entryCount());
                    assertTrue(f.height() >= 2);
                    CompressedTableTest.assertEntries(expected, reader);
                    for (InternalEntry e : expected) {
                        assertEquals(e, reader.get(e.key(), e.seqno()));
                    }
                    List<InternalEntry> backwards = new ArrayList<>();
                    TableIterator it = reader.iterator();
                    for (it.seekToLast(); it.valid(); it.prev()) {
                        backwards.add(it.entry());
                    }
                    java.util.Collections.reverse(backwards);
                    assertEquals(expected, backwards);
                }
            }
            // Its prefix leaves are smaller than the plain fixture's: fewer leaves for the same entries.
            Footer plain = open(copy(resource(codec), "plain-" + codec + ".sst")).footer();
            Footer prefix = open(path).footer();
            assertTrue(prefix.leafCount() < plain.leafCount(), prefix + " against " + plain);
        }
        // The uncompressed one merges in place: the new version keeps encoding 1, reusing leaves as they are.
        InternalEntry added = InternalEntry.put("user0000000007x".getBytes(), 9_000_000, "new".getBytes());
        Path path = copy(prefixResource(Compression.NONE), "prefix-in-place.sst");
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader base = SSTableReader.open(file, file.size() - 4096, 1, BlockCache.disabled());
            // Options asking for plain leaves do not change a version's encoding.
            BlockMergeResult result = BlockMergeWriter.merge(file, base, TableOptions.defaults().withBloomReserve(0.2)
                            .withLeafEncoding(LeafEncoding.PLAIN, 16), new EntryListIterator(List.of(added)),
                    BlockMergeWriter.Retention.keepAll());
            SSTableReader merged = SSTableReader.open(file, result.table().footerOffset(), 1, BlockCache.disabled());
            assertEquals(3, merged.footer().formatVersion());
            assertEquals(LeafEncoding.PREFIX, merged.footer().leafEncoding());
            assertTrue(result.leavesReused() > 0, "clean leaves were reused");
            List<InternalEntry> all = new ArrayList<>(expected);
            all.add(added);
            all.sort(Comparator.comparing(InternalEntry::key, InternalKeys::compareUserKeys)
                    .thenComparing(InternalEntry::seqno, Comparator.reverseOrder()));
            CompressedTableTest.assertEntries(all, merged);
            for (InternalEntry e : all) {
                assertEquals(e, merged.get(e.key(), e.seqno()));
            }
        }
    }

    private SSTableReader open(Path path) throws IOException {
        PageFile file = fixture.openForRead(path);
        return SSTableReader.open(file, file.size() - 4096, 1, BlockCache.disabled());
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void tablesOfAllFormatsAndCodecsMergeIntoOne(Compression codec) throws IOException {
        List<InternalEntry> expected = new ArrayList<>();
        expected.addAll(LegacyFormatTest.entries());
        expected.addAll(TableFixture.randomEntries(new Random(20261125), 3000, 8, 64, 0, 100));
        expected.addAll(fixtureEntries());
        expected.sort(Comparator.comparing(InternalEntry::key, InternalKeys::compareUserKeys)
                .thenComparing(InternalEntry::seqno, Comparator.reverseOrder()));
        List<SSTableReader> inputs = List.of(open(copy(LegacyFormatTest.RESOURCE, "f1.sst")),
                open(copy("/sstable/format2-bloom1.sst", "f2.sst")), open(copy(resource(codec), "f3.sst")));
        assertEquals(List.of(1, 2, 3), inputs.stream().map(r -> r.footer().formatVersion()).toList());
        List<TableIterator> its = inputs.stream().map(SSTableReader::iterator).toList();
        Compression outCodec = Compression.values()[(codec.ordinal() + 1) % Compression.values().length];
        Path out = dir.resolve("merged.sst");
        FinishedTable table;
        try (MergingIterator merged = new MergingIterator(its);
             PageFile file = fixture.io.open(out, OpenMode.CREATE, IoPurpose.MERGE)) {
            merged.seekToFirst();
            SSTableWriter writer = new SSTableWriter(file, TableOptions.defaults().withCompression(outCodec));
            while (merged.valid()) {
                writer.add(merged.key(), merged.seqno(), merged.type(), merged.value());
                merged.next();
            }
            table = writer.finish();
        }
        assertEquals(outCodec, table.footer().compression());
        try (PageFile file = fixture.openForRead(out)) {
            CompressedTableTest.assertEntries(expected, TableFixture.open(file, table, BlockCache.create(1 << 20)));
        }
    }

    @Test
    void formatTwoAndUncompressedFormatThreeStillMergeInPlaceKeepingTheirFormat() throws IOException {
        InternalEntry added = InternalEntry.put("user0000000007x".getBytes(), 9_000_000, "new".getBytes());
        for (String resource : List.of("/sstable/format2-bloom1.sst", resource(Compression.NONE))) {
            Path path = copy(resource, resource.substring(resource.lastIndexOf('/') + 1));
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, file.size() - 4096, 1, BlockCache.disabled());
                int format = base.footer().formatVersion();
                BlockMergeResult result = BlockMergeWriter.merge(file, base, TableOptions.defaults().withBloomReserve(0.2),
                        new EntryListIterator(List.of(added)), BlockMergeWriter.Retention.keepAll());
                SSTableReader merged = SSTableReader.open(file, result.table().footerOffset(), 1, BlockCache.disabled());
                assertEquals(format, merged.footer().formatVersion(), resource);
                // The options ask for prefix leaves (the default); the plain base keeps plain ones.
                assertEquals(LeafEncoding.PLAIN, merged.footer().leafEncoding(), resource);
                assertEquals(base.footer().entryCount() + 1, merged.footer().entryCount());
                assertEquals(added, merged.get(added.key()));
                assertTrue(result.leavesReused() > 0, "clean leaves were reused");
            }
        }
    }
}
