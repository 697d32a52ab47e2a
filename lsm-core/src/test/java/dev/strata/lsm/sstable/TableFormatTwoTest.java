package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Format version 2: leaf summaries in level-1 cells, bloom capacity and live pages in the footer. */
class TableFormatTwoTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    static List<InternalEntry> entriesWithOverflow(long seed, int keys) {
        Random rnd = new Random(seed);
        List<InternalEntry> entries = new ArrayList<>(TableFixture.randomEntries(rnd, keys, 8, 40, 0, 200));
        for (int i = 7; i < entries.size(); i += 97) {
            InternalEntry e = entries.get(i);
            byte[] big = new byte[2500 + rnd.nextInt(10_000)];
            rnd.nextBytes(big);
            entries.set(i, InternalEntry.put(e.key(), e.seqno(), big));
        }
        return entries;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 30, 5000})
    void leafSummariesMatchTheLeavesAndAddUpToTheFooter(int keys) throws IOException {
        List<InternalEntry> entries = entriesWithOverflow(keys, keys);
        Path path = dir.resolve("t.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            Footer f = reader.footer();
            assertEquals(Footer.FORMAT_VERSION, f.formatVersion());
            List<LeafRef> leaves = LeafIndex.leaves(reader);
            assertEquals(f.leafCount(), leaves.size());
            TableIterator it = reader.iterator();
            it.seekToFirst();
            long entriesSum = 0;
            long tombstonesSum = 0;
            long userBytesSum = 0;
            long overflowSum = 0;
            for (LeafRef leaf : leaves) {
                int entriesInLeaf = 0;
                int tombstones = 0;
                int overflowPages = 0;
                long userBytes = 0;
                long minSeq = Long.MAX_VALUE;
                long maxSeq = Long.MIN_VALUE;
                InternalEntry first = it.entry();
                InternalEntry last = null;
                while (it.valid() && it.leafPageNumber() == leaf.page()) {
                    InternalEntry e = it.entry();
                    entriesInLeaf++;
                    tombstones += e.isTombstone() ? 1 : 0;
                    userBytes += e.key().length + (e.isTombstone() ? 0 : e.value().length);
                    if (!e.isTombstone() && e.value().length > 2000) {
                        overflowPages += (e.value().length + 4095) / 4096;
                    }
                    minSeq = Math.min(minSeq, e.seqno());
                    maxSeq = Math.max(maxSeq, e.seqno());
                    last = e;
                    it.next();
                }
                LeafSummary s = leaf.summary();
                assertEquals(new LeafSummary(entriesInLeaf, tombstones, overflowPages, userBytes, minSeq, maxSeq), s);
                assertEquals(java.util.HexFormat.of().formatHex(first.key()),
                        java.util.HexFormat.of().formatHex(leaf.minKey()));
                assertEquals(first.seqno(), leaf.minKeySeqno());
                assertEquals(java.util.HexFormat.of().formatHex(last.key()),
                        java.util.HexFormat.of().formatHex(leaf.maxKey()));
                assertEquals(last.seqno(), leaf.maxKeySeqno());
                entriesSum += s.entries();
                tombstonesSum += s.tombstones();
                userBytesSum += s.userBytes();
                overflowSum += s.overflowPages();
            }
            assertTrue(!it.valid());
            assertEquals(f.entryCount(), entriesSum);
            assertEquals(f.tombstoneCount(), tombstonesSum);
            assertEquals(f.userBytes(), userBytesSum);
            assertEquals(f.overflowPageCount(), overflowSum);
            // A freshly written file holds one version, which references every page of it.
            assertEquals(Files.size(path) / 4096, f.livePages());
            assertEquals(Files.size(path), f.liveBytes());
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, 0.1, 0.4})
    void bloomFilterIsSizedForTheKeysPlusTheReserve(double reserve) throws IOException {
        List<InternalEntry> entries = TableFixture.randomEntries(new Random(3), 4000, 8, 20, 0, 20);
        long distinct = entries.stream().map(e -> java.util.HexFormat.of().formatHex(e.key())).distinct().count();
        TableOptions options = TableOptions.defaults().withBloomReserve(reserve);
        FinishedTable table = fixture.write(dir.resolve("b.sst"), options, entries);
        Footer f = table.footer();
        long capacity = (long) Math.floor(distinct * (1 + reserve));
        assertEquals(distinct, f.bloomKeys());
        assertEquals(capacity, f.bloomCapacity());
        long bits = Math.max(512, (capacity * 10 + 511) / 512 * 512); // whole 512-bit blocks (extent version 2)
        assertEquals(BloomFilter.HEADER_SIZE + bits / 8, f.bloomLength());
    }

    @Test
    void badBloomReserveIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TableOptions.defaults().withBloomReserve(-0.1));
        assertTrue(e.getMessage().contains("bloom reserve"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TableOptions.defaults().withBloomReserve(5));
        assertThrows(IllegalArgumentException.class, () -> TableOptions.defaults().withBloomReserve(Double.NaN));
    }

    @Test
    void leafSummaryRoundTripsAtItsLimits() {
        LeafSummary s = new LeafSummary(65535, 65535, Integer.MAX_VALUE, (1L << 48) - 1, 0, InternalKeys.MAX_SEQNO);
        byte[] b = new byte[LeafSummary.SIZE + 3];
        s.encode(b, 3);
        assertEquals(s, LeafSummary.decode(b, 3));
        assertThrows(IllegalStateException.class, () -> new LeafSummary(0, 0, 0, 0, 0, 0).encode(b, 0));
    }
}
