package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Format-3 tables with compressed, packed pages: round trips per codec and page size, layout, cache and refusals. */
class CompressedTableTest {
    static final Compression[] CODECS = {Compression.LZ4, Compression.ZSTD, Compression.SNAPPY};

    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    /**
     * Sorted entries over {@code keys} keys "user0000012345", values of text-like bytes of which
     * about {@code randomFraction} are random (the rest repeats a small vocabulary), some
     * versions and tombstones, and every 97th value larger than half a page (an overflow extent).
     */
    static List<InternalEntry> compressibleEntries(Random rnd, int keys, double randomFraction, int pageSize) {
        String[] words = {"alpha ", "beta ", "gamma ", "delta ", "strata ", "lsm ", "page ", "tree "};
        List<InternalEntry> out = new ArrayList<>();
        long seq = 5_000_000;
        for (int i = 0; i < keys; i++) {
            byte[] key = TestKeys.padded("user", i * 7L, 10).getBytes();
            int versions = rnd.nextInt(10) == 0 ? 2 : 1;
            for (int v = 0; v < versions; v++) {
                long s = seq - v;
                if (rnd.nextInt(9) == 0) {
                    out.add(InternalEntry.delete(key, s));
                    continue;
                }
                int len = i % 97 == 0 ? pageSize + rnd.nextInt(pageSize) : 20 + rnd.nextInt(180);
                byte[] value = new byte[len];
                int at = 0;
                while (at < len) {
                    if (rnd.nextDouble() < randomFraction) {
                        value[at++] = (byte) rnd.nextInt(256);
                    } else {
                        byte[] w = words[rnd.nextInt(words.length)].getBytes();
                        int n = Math.min(w.length, len - at);
                        System.arraycopy(w, 0, value, at, n);
                        at += n;
                    }
                }
                out.add(InternalEntry.put(key, s, value));
            }
            seq -= 3;
        }
        return out;
    }

    static Stream<Arguments> codecsAndPageSizes() {
        List<Arguments> args = new ArrayList<>();
        for (Compression c : CODECS) {
            for (int pageSize : new int[]{4096, 16384, 65536}) {
                args.add(Arguments.of(c, pageSize));
            }
        }
        return args.stream();
    }

    @ParameterizedTest
    @MethodSource("codecsAndPageSizes")
    void roundTripPerCodecAndPageSize(Compression codec, int pageSize) throws IOException {
        List<InternalEntry> entries = compressibleEntries(new Random(pageSize + codec.id()), 3000, 0.1, pageSize);
        Path plainPath = dir.resolve("plain.sst");
        Path path = dir.resolve("packed.sst");
        TableOptions options = new TableOptions(pageSize, 10);
        FinishedTable plain = fixture.write(plainPath, options, entries);
        FinishedTable table = fixture.write(path, options.withCompression(codec, 3), entries);
        Footer f = table.footer();
        assertEquals(3, f.formatVersion());
        assertEquals(codec, f.compression());
        assertTrue(f.packed());
        assertTrue(f.mergeableInPlace(), "merged in place with a spanning page map");
        assertFalse(f.spanningMap());
        assertEquals(0, f.rangeTombstoneOffset());
        assertEquals(0, f.rangeTombstoneLength());
        // The logical shape is that of the same table uncompressed; only the bytes differ.
        assertEquals(plain.footer().livePages(), f.livePages());
        assertEquals(plain.footer().leafCount(), f.leafCount());
        assertEquals(plain.footer().entryCount(), f.entryCount());
        assertEquals(Compression.NONE, plain.footer().compression());
        assertFalse(plain.footer().packed());
        assertEquals(table.endOffset(), f.storedBytes());
        assertEquals(0, table.footerOffset() % pageSize);
        assertTrue(f.storedBytes() < plain.footer().storedBytes() * 3 / 4, "stored " + f.storedBytes()
                + " bytes compressed, " + plain.footer().storedBytes() + " plain");
        try (PageFile file = fixture.openForRead(path)) {
            assertEquals(table.endOffset(), file.size());
            for (BlockCache cache : List.of(BlockCache.disabled(), BlockCache.create(8 << 20))) {
                SSTableReader reader = TableFixture.open(file, table, cache);
                assertEquals(f, reader.footer());
                assertEntries(entries, reader);
                for (InternalEntry e : entries) {
                    InternalEntry got = reader.get(e.key(), e.seqno());
                    assertNotNull(got);
                    assertEquals(e.seqno(), got.seqno());
                    assertArrayEquals(e.value(), got.value());
                }
                assertNull(reader.get("user0000000001".getBytes()), "an absent key");
                assertTrue(cache.decompressions() > 0);
                assertTrue(cache.decompressionNanos() > 0);
            }
        }
    }

    /**
     * Pages compressed on the building thread, on the shared compressor pool and, by default,
     * on the pool while a core is idle make the same file, byte for byte: frames in page
     * order, the same page map and footer.
     */
    @ParameterizedTest
    @MethodSource("codecsAndPageSizes")
    void compressingInParallelWritesTheSameFile(Compression codec, int pageSize) throws IOException {
        List<InternalEntry> entries = compressibleEntries(new Random(pageSize * 31L + codec.id()), 4000, 0.2, pageSize);
        TableOptions options = new TableOptions(pageSize, 10).withCompression(codec, 3);
        assertEquals(dev.strata.lsm.ParallelCompression.AUTO, options.parallelCompression(), "auto by default");
        Path inline = dir.resolve("inline.sst");
        FinishedTable a = fixture.write(inline, options.withParallelCompression(false), entries);
        assertTrue(a.footer().livePages() > 64, "more pages than a parallel sink keeps in flight: "
                + a.footer().livePages());
        byte[] expected = java.nio.file.Files.readAllBytes(inline);
        for (dev.strata.lsm.ParallelCompression p : List.of(dev.strata.lsm.ParallelCompression.ON,
                dev.strata.lsm.ParallelCompression.AUTO)) {
            Path parallel = dir.resolve(p + ".sst");
            FinishedTable b = fixture.write(parallel, options.withParallelCompression(p), entries);
            assertEquals(a.footer(), b.footer(), p.toString());
            assertArrayEquals(expected, java.nio.file.Files.readAllBytes(parallel), p.toString());
        }
        try (PageFile file = fixture.openForRead(inline)) {
            assertEntries(entries, TableFixture.open(file, a, BlockCache.disabled()));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD", "SNAPPY"})
    void theBlockCacheHoldsDecompressedPages(Compression codec) throws IOException {
        List<InternalEntry> entries = compressibleEntries(new Random(3), 2000, 0.05, 4096);
        Path path = dir.resolve("t.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(codec), entries);
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(64 << 20);
            SSTableReader reader = TableFixture.open(file, table, cache);
            assertEntries(entries, reader);
            long first = cache.decompressions();
            assertTrue(first >= table.footer().leafCount(), first + " decompressions for "
                    + table.footer().leafCount() + " leaves");
            assertEntries(entries, reader);
            for (InternalEntry e : entries) {
                reader.get(e.key(), e.seqno());
            }
            assertEquals(first, cache.decompressions(), "pages served from the cache are not decompressed again");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD", "SNAPPY"})
    void pagesThatDoNotShrinkByAnEighthAreStoredAsTheyAre(Compression codec) throws IOException {
        // Random keys and values do not compress.
        List<InternalEntry> entries = TableFixture.randomEntries(new Random(11), 1500, 16, 40, 50, 400);
        Path path = dir.resolve("random.sst");
        SSTableWriter writer;
        FinishedTable table;
        try (PageFile file = fixture.io.open(path, OpenMode.CREATE, IoPurpose.FLUSH)) {
            writer = new SSTableWriter(file, TableOptions.defaults().withCompression(codec));
            for (InternalEntry e : entries) {
                writer.add(e);
            }
            table = writer.finish();
        }
        // Most leaves are stored (a leaf whose free space is an eighth of the page compresses).
        assertTrue(writer.pagesStoredUncompressed() >= table.footer().leafCount() / 2, writer
                .pagesStoredUncompressed() + " pages stored of " + table.footer().leafCount() + " leaves");
        // On disk: each stored frame says codec 0 and holds the page as it is.
        byte[] bytes = java.nio.file.Files.readAllBytes(path);
        Footer f = table.footer();
        int stored = 0;
        int compressed = 0;
        for (int i = 0; i < f.mappedPages(); i++) {
            long off = PageFormat.getLong(bytes, (int) f.pageMapOffset() + i * PageFormat.MAP_ENTRY_SIZE);
            int len = PageFormat.getInt(bytes, (int) f.pageMapOffset() + i * PageFormat.MAP_ENTRY_SIZE + 8);
            if (len == 0 || f.firstPage() + i == f.bloomPage()) {
                continue; // values here are below half a page: the only extent is the bloom filter
            }
            assertEquals(f.firstPage() + i, PageFormat.getInt(bytes, (int) off + PageFormat.FRAME_OFF_PAGE));
            if (bytes[(int) off + PageFormat.FRAME_OFF_CODEC] == 0) {
                assertEquals(PageFormat.FRAME_HEADER_SIZE + 4096, len);
                stored++;
            } else {
                assertEquals(codec.id(), bytes[(int) off + PageFormat.FRAME_OFF_CODEC]);
                assertTrue(len - PageFormat.FRAME_HEADER_SIZE <= 4096 - 4096 / 8, "a compressed frame of " + len);
                compressed++;
            }
        }
        assertEquals(writer.pagesStoredUncompressed(), stored);
        assertEquals(writer.pagesCompressed(), compressed);
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(8 << 20);
            SSTableReader reader = TableFixture.open(file, table, cache);
            assertEntries(entries, reader);
            assertEquals(writer.pagesCompressed(), Math.min(writer.pagesCompressed(), cache.decompressions()));
        }
    }

    @Test
    void anEmptyCompressedTableIsAFooterAndAMap() throws IOException {
        Path path = dir.resolve("empty.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(Compression.LZ4), List.of());
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            assertEquals(0, reader.footer().entryCount());
            assertNull(reader.get("x".getBytes()));
            TableIterator it = reader.iterator();
            it.seekToFirst();
            assertFalse(it.valid());
        }
    }

    @Test
    void aFailedInPlaceMergeOfACompressedTableLeavesNothingInTheFile() throws IOException {
        List<InternalEntry> entries = compressibleEntries(new Random(5), 500, 0.1, 4096);
        Path path = dir.resolve("t.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(Compression.ZSTD), entries);
        long size;
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            size = file.size();
            SSTableReader base = TableFixture.open(file, table, BlockCache.disabled());
            // Input out of order: the merge fails and cuts the file back.
            EntryListIterator in = new EntryListIterator(List.of(
                    InternalEntry.put("user0000000400".getBytes(), 9_000_001, "v".getBytes()),
                    InternalEntry.put("user0000000003".getBytes(), 9_000_000, "v".getBytes())));
            in.seekToFirst();
            assertThrows(IllegalArgumentException.class, () -> BlockMergeWriter.merge(file, base,
                    TableOptions.defaults(), in, BlockMergeWriter.Retention.keepAll()));
            assertEquals(size, file.size(), "nothing is left in the file");
            assertEntries(entries, TableFixture.open(file, table, BlockCache.disabled()));
        }
    }

    @Test
    void aCodecWhoseNativePartCannotLoadIsAConfigExceptionNamingIt() {
        ConfigException e = assertThrows(ConfigException.class, () -> PageCodec.load(Compression.SNAPPY, () -> {
            throw new UnsatisfiedLinkError("no snappyjava in java.library.path");
        }));
        assertTrue(e.getMessage().contains("'snappy'"), e.getMessage());
        assertTrue(e.getMessage().contains("no snappyjava"), e.getMessage());
        ConfigException unknown = assertThrows(ConfigException.class, () -> Compression.fromName("brotli"));
        assertTrue(unknown.getMessage().contains("brotli"), unknown.getMessage());
        for (Compression c : CODECS) {
            c.checkAvailable(); // the natives of this platform load
        }
    }

    static void assertEntries(List<InternalEntry> expected, SSTableReader reader) throws IOException {
        TableIterator it = reader.iterator();
        it.seekToFirst();
        int i = 0;
        while (it.valid()) {
            InternalEntry e = it.entry();
            InternalEntry x = expected.get(i++);
            assertArrayEquals(x.key(), e.key());
            assertEquals(x.seqno(), e.seqno());
            assertEquals(x.type(), e.type());
            assertTrue(Arrays.equals(x.value(), e.value()), "value of entry " + (i - 1));
            it.next();
        }
        assertEquals(expected.size(), i);
    }
}
