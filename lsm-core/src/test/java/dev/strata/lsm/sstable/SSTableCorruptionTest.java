package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Flipping any single byte of a table must surface as a CorruptionException, never as wrong data.
 * The small table's sweep flips every byte in the slow lane ({@link SSTableCorruptionSlowTest});
 * the fast lane flips every byte of each page's first and last {@value #PAGE_EDGE} bytes (stored
 * checksums, headers, the end of a checksummed range) and every {@value #STRIDE}th byte between,
 * starting at an offset that moves from page to page.
 */
class SSTableCorruptionTest {
    /** Bytes at each end of a page that the fast lane's sweep flips one by one. */
    private static final int PAGE_EDGE = 32;
    /** The fast lane's sweep flips every STRIDE-th byte of a page between its edges. */
    private static final int STRIDE = 16;

    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    /** Opens, scans everything (values included) and looks up every key. */
    private void readEverything(Path path, FinishedTable table, List<InternalEntry> entries) throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            TableIterator it = reader.iterator();
            it.seekToFirst();
            List<InternalEntry> read = new ArrayList<>();
            while (it.valid()) {
                read.add(it.entry());
                it.next();
            }
            assertEquals(entries, read, "wrong data returned");
            for (InternalEntry e : entries) {
                assertEquals(e, reader.get(e.key(), e.seqno()), "wrong data returned");
            }
        }
    }

    private static void flip(FileChannel ch, long pos, int mask) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1);
        ch.read(b, pos);
        b.put(0, (byte) (b.get(0) ^ mask));
        b.rewind();
        ch.write(b, pos);
    }

    private void flipEachPosition(Path path, FinishedTable table, List<InternalEntry> entries, long[] positions)
            throws IOException {
        Random rnd = new Random(positions.length);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (long pos : positions) {
                int mask = 1 + rnd.nextInt(255);
                flip(ch, pos, mask);
                try {
                    readEverything(path, table, entries);
                    fail("flipping byte " + pos + " went unnoticed");
                } catch (CorruptionException e) {
                    long page = pos / table.footer().pageSize();
                    assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
                    assertTrue(e.getMessage().contains("page"), e.getMessage());
                    assertTrue(e.offset() <= pos, "reported offset " + e.offset() + " after flipped byte " + pos
                            + " (page " + page + "): " + e.getMessage());
                } finally {
                    flip(ch, pos, mask);
                }
            }
        }
        readEverything(path, table, entries);
    }

    @ParameterizedTest(name = "leaf encoding {0}")
    @EnumSource(LeafEncoding.class)
    void everyByteOfASmallTableIsProtected(LeafEncoding encoding) throws IOException {
        Random rnd = new Random(77);
        List<InternalEntry> entries = new ArrayList<>();
        for (InternalEntry e : TableFixture.randomEntries(rnd, 150, 2, 20, 0, 60)) {
            if (!e.isTombstone() && rnd.nextInt(30) == 0) {
                byte[] big = new byte[6000 + rnd.nextInt(3000)];
                rnd.nextBytes(big);
                entries.add(InternalEntry.put(e.key(), e.seqno(), big));
            } else {
                entries.add(e);
            }
        }
        Path path = dir.resolve("small-" + encoding + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withLeafEncoding(encoding, 4), entries);
        assertEquals(encoding, table.footer().leafEncoding());
        assertTrue(table.footer().height() >= 2 && table.footer().overflowPageCount() > 0
                && table.footer().bloomPage() >= 0, table.footer().toString());
        long size = Files.size(path);
        int pageSize = table.footer().pageSize();
        long[] positions = java.util.stream.LongStream.range(0, size).filter(pos -> {
            if (TestScale.multiplier() > 1) {
                return true;
            }
            long page = pos / pageSize;
            long inPage = pos % pageSize;
            return inPage < PAGE_EDGE || inPage >= pageSize - PAGE_EDGE || inPage % STRIDE == page % STRIDE;
        }).toArray();
        flipEachPosition(path, table, entries, positions);
    }

    @ParameterizedTest(name = "leaf encoding {0}")
    @EnumSource(LeafEncoding.class)
    void sampledBytesOfATallTableAreProtected(LeafEncoding encoding) throws IOException {
        long seed = TestSeed.orRandom();
        System.out.println("sampledBytesOfATallTableAreProtected seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        List<InternalEntry> entries = TableFixture.randomEntries(rnd, 6000, 8, 30, 0, 120);
        Path path = dir.resolve("tall-" + encoding + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withLeafEncoding(encoding, 16), entries);
        assertTrue(table.footer().height() >= 3, table.footer().toString());
        long size = Files.size(path);
        long[] positions = new long[300];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = (long) (rnd.nextDouble() * size);
        }
        // Always include the footer's first and last bytes and the first interior bytes.
        positions[0] = table.footerOffset();
        positions[1] = size - 1;
        positions[2] = table.footerOffset() + 20;
        flipEachPosition(path, table, entries, positions);
    }

    @Test
    void aScanThatMeetsADamagedLeafIsNoLongerPositioned() throws IOException {
        List<InternalEntry> entries = TableFixture.randomEntries(new Random(5), 2000, 8, 16, 20, 40);
        Path path = dir.resolve("scan.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
        int pageSize = table.footer().pageSize();
        // The iterator copies each leaf into one array of its own; a leaf that fails its
        // check leaves that array half written, so nothing of it may be served afterwards.
        int secondLeaf;
        try (PageFile file = fixture.openForRead(path)) {
            TableIterator it = TableFixture.open(file, table, BlockCache.create(1 << 20)).iterator();
            it.seekToFirst();
            int first = it.leafPageNumber();
            while (it.valid() && it.leafPageNumber() == first) {
                it.next();
            }
            assertTrue(it.valid(), "the table has a single leaf");
            secondLeaf = it.leafPageNumber();
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            flip(ch, (long) secondLeaf * pageSize + pageSize / 2, 0x10);
        }
        try (PageFile file = fixture.openForRead(path)) {
            TableIterator it = TableFixture.open(file, table, BlockCache.create(1 << 20)).iterator();
            it.seekToFirst();
            CorruptionException e = null;
            try {
                while (it.valid()) {
                    it.key();
                    it.next();
                }
            } catch (CorruptionException thrown) {
                e = thrown;
            }
            assertTrue(e != null, "a damaged leaf went unnoticed");
            assertTrue(e.getMessage().contains("page " + secondLeaf), e.getMessage());
            assertFalse(it.valid(), "still positioned after a failed leaf load");
            assertThrows(NoSuchElementException.class, it::key);
        }
    }

    // ---- prefix-compressed leaves (leaf encoding 1) damaged behind a valid checksum ----

    /** A prefix table whose first page is a leaf of small cells with shared key prefixes. */
    private record PrefixTable(Path path, FinishedTable table, List<InternalEntry> entries, byte[] leaf) {
    }

    private PrefixTable prefixTable(String name) throws IOException {
        List<InternalEntry> entries = PrefixLeafTest.entries(new Random(21), 400, 8, 2, 4, 20);
        Path path = dir.resolve(name + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withLeafEncoding(LeafEncoding.PREFIX, 4),
                entries);
        assertTrue(table.footer().leafCount() > 1, table.footer().toString());
        byte[] leaf = new byte[table.footer().pageSize()];
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            ch.read(ByteBuffer.wrap(leaf), 0);
        }
        assertEquals(PageFormat.TYPE_LEAF, leaf[PageFormat.OFF_TYPE], "page 0 is the first leaf");
        return new PrefixTable(path, table, entries, leaf);
    }

    /** Writes {@code page} over page 0 with its checksum recomputed, so only the leaf's own checks can see the damage. */
    private static void writeLeaf(Path path, byte[] page) throws IOException {
        PageFormat.putInt(page, PageFormat.OFF_CRC, PageFormat.pageChecksum(page, page.length));
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(page), 0);
        }
    }

    /** Reads everything, values included; wrong data is possible (the checksum was forged), other exceptions are not. */
    private void readAnything(PrefixTable t) throws IOException {
        try (PageFile file = fixture.openForRead(t.path())) {
            SSTableReader reader = TableFixture.open(file, t.table(), BlockCache.disabled());
            TableIterator it = reader.iterator();
            for (it.seekToFirst(); it.valid(); it.next()) {
                it.key();
                it.value();
            }
            for (it.seekToLast(); it.valid(); it.prev()) {
                it.key();
            }
            for (InternalEntry e : t.entries()) {
                reader.get(e.key(), e.seqno());
            }
        }
    }

    @Test
    void malformedPrefixLeavesAreCorruptionNamingFileAndPage() throws IOException {
        PrefixTable t = prefixTable("malformed");
        byte[] good = t.leaf();
        int pageSize = good.length;
        int dataEnd = PageFormat.getInt(good, PageFormat.OFF_DATA_END);
        LeafDecoder d = new LeafDecoder(null, pageSize, Long.MAX_VALUE, LeafEncoding.PREFIX).reset(good, 0);
        d.seek(1);
        int cell1 = d.cellOffset();
        int sharedOfCell1 = good[cell1];
        assertTrue(sharedOfCell1 >= 8, "cell 1 shares the common prefix: " + sharedOfCell1);
        int tagOffset = cell1 + 2;
        d.seek(d.count() - 1);
        int lastCell = d.cellOffset();
        assertTrue(dataEnd - lastCell < 100, "the last cell is small");
        record Damage(String what, String expected, java.util.function.Consumer<byte[]> apply) {
        }
        List<Damage> damages = List.of(
                new Damage("a shared length beyond the previous key", "shares 100 key bytes",
                        p -> p[cell1] = 100),
                new Damage("a restart cell that shares a prefix", "restart 0 has a shared prefix of 1",
                        p -> p[PageFormat.HEADER_SIZE] = 1),
                new Damage("a restart offset past the cells", "restart 1 points to offset",
                        p -> PageFormat.putShort(p, pageSize - 2 - 4, dataEnd + 3)),
                new Damage("restart offsets out of order", "restart 2 points to offset",
                        p -> PageFormat.putShort(p, pageSize - 2 - 6, PageFormat.HEADER_SIZE + 1)),
                new Damage("a first restart not at the first cell", "restart 0 points to offset",
                        p -> PageFormat.putShort(p, pageSize - 2 - 2, PageFormat.HEADER_SIZE + 2)),
                new Damage("a restart interval of 0", "restart interval 0",
                        p -> PageFormat.putShort(p, pageSize - 2, 0)),
                new Damage("a restart interval of 1 (restart slots over the cells)", "restart slots",
                        p -> PageFormat.putShort(p, pageSize - 2, 1)),
                new Damage("a restart that is not where the scan arrives", "but cell 4 starts at",
                        p -> PageFormat.putShort(p, pageSize - 2 - 4, PageFormat.getShort(p, pageSize - 2 - 4) + 1)),
                new Damage("an unknown entry type", "unknown entry type 3",
                        p -> p[tagOffset] = (byte) (p[tagOffset] | 3)),
                new Damage("a key suffix past the cells", "key suffix of 120 bytes",
                        p -> p[lastCell + 1] = 120),
                new Damage("a key suffix running into the next cells", "in leaf page 0",
                        p -> p[cell1 + 1] = 120),
                new Damage("a cell count with more restarts than the page has", "points to offset 0",
                        p -> PageFormat.putInt(p, PageFormat.OFF_COUNT, PageFormat.getInt(p, PageFormat.OFF_COUNT) + 4)));
        for (Damage damage : damages) {
            byte[] page = good.clone();
            damage.apply().accept(page);
            writeLeaf(t.path(), page);
            CorruptionException e = assertThrows(CorruptionException.class, () -> readAnything(t), damage.what());
            assertTrue(e.getMessage().contains(t.path().toString()) && e.getMessage().contains("page 0"),
                    damage.what() + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(damage.expected()) || (e.getCause() != null
                    && String.valueOf(e.getCause().getMessage()).contains(damage.expected())), damage.what() + ": "
                    + e.getMessage());
        }
        writeLeaf(t.path(), good.clone());
        readEverything(t.path(), t.table(), t.entries());
    }

    /**
     * Random single-byte changes and truncations of a prefix leaf's cells and restarts with
     * the checksum forged: a read may return damaged data (nothing can tell), but it fails, if
     * it fails, only with a CorruptionException, and never hangs.
     */
    @Test
    @Timeout(120)
    void forgedDamageToPrefixLeavesFailsOnlyAsCorruption() throws IOException {
        PrefixTable t = prefixTable("forged");
        byte[] good = t.leaf();
        int pageSize = good.length;
        int dataEnd = PageFormat.getInt(good, PageFormat.OFF_DATA_END);
        Random rnd = new Random(TestSeed.orRandom());
        int corrupt = 0;
        for (int i = 0; i < 600; i++) {
            byte[] page = good.clone();
            int kind = rnd.nextInt(4);
            if (kind == 0) {
                // A byte of the cells, the header or the restart array.
                int pos = rnd.nextInt(3) == 0 ? pageSize - 1 - rnd.nextInt(64) : 4 + rnd.nextInt(dataEnd - 4);
                page[pos] ^= (byte) (1 + rnd.nextInt(255));
            } else if (kind == 1) {
                // Truncated cells: the data end moved back, the rest zeroed.
                int end = PageFormat.HEADER_SIZE + rnd.nextInt(dataEnd - PageFormat.HEADER_SIZE);
                java.util.Arrays.fill(page, end, dataEnd, (byte) 0);
                PageFormat.putInt(page, PageFormat.OFF_DATA_END, end);
            } else {
                page[PageFormat.HEADER_SIZE + rnd.nextInt(dataEnd - PageFormat.HEADER_SIZE)] = (byte) rnd.nextInt(256);
            }
            writeLeaf(t.path(), page);
            try {
                readAnything(t);
            } catch (CorruptionException e) {
                corrupt++;
                assertTrue(e.getMessage().contains(t.path().toString()), e.getMessage());
            }
        }
        assertTrue(corrupt > 100, corrupt + " of 600 damaged leaves reported as corrupt");
        writeLeaf(t.path(), good.clone());
        readEverything(t.path(), t.table(), t.entries());
    }

    @Test
    void truncatedPrefixTablesAreCorruption() throws IOException {
        PrefixTable t = prefixTable("truncated");
        byte[] all = Files.readAllBytes(t.path());
        Random rnd = new Random(4);
        for (int i = 0; i < 40; i++) {
            int length = i == 0 ? (int) t.table().footerOffset() : rnd.nextInt(all.length);
            Files.write(t.path(), java.util.Arrays.copyOf(all, length));
            assertThrows(CorruptionException.class, () -> readAnything(t), "truncated to " + length);
        }
        Files.write(t.path(), all);
        readEverything(t.path(), t.table(), t.entries());
    }
}
