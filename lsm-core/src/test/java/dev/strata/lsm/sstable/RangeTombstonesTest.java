package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RangeTombstones} against a brute-force list of tombstones (fragmentation, lookups,
 * visibility, retention, clipping), and the range-tombstone extent of a format-3 table: round
 * trip unpacked and packed, key bounds, page liveness, damage detected.
 */
class RangeTombstonesTest {
    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    /** The brute-force answer of {@link RangeTombstones#coveringSeqno}. */
    private static long covering(List<RangeTombstones.Tombstone> ts, int k, long read) {
        long best = 0;
        for (RangeTombstones.Tombstone t : ts) {
            int from = ByteBuffer.wrap(t.from()).getInt();
            int to = ByteBuffer.wrap(t.to()).getInt();
            if (from <= k && k < to && t.seqno() <= read) {
                best = Math.max(best, t.seqno());
            }
        }
        return best;
    }

    @Test
    void fragmentsAnswerAsTheTombstonesThemselves() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<RangeTombstones.Tombstone> ts = new ArrayList<>();
            RangeTombstones set = RangeTombstones.EMPTY;
            int n = rnd.nextInt(12);
            for (int i = 0; i < n; i++) {
                int from = rnd.nextInt(100);
                int to = from + rnd.nextInt(30);
                long seq = 1 + rnd.nextInt(50);
                ts.add(new RangeTombstones.Tombstone(key(from), key(to), seq));
                set = set.with(key(from), key(to), seq);
            }
            assertEquals(set, RangeTombstones.of(ts), "seed " + seed);
            long read = rnd.nextInt(60);
            RangeTombstones visible = set.visibleAt(read);
            RangeTombstones clipped = set.clip(key(20), key(70));
            for (int k = 0; k < 140; k++) {
                assertEquals(covering(ts, k, read), set.coveringSeqno(key(k), read), "key " + k + ", seed " + seed);
                assertEquals(covering(ts, k, read), visible.coveringSeqno(key(k), Long.MAX_VALUE), "visible, seed " + seed);
                assertEquals(k >= 20 && k < 70 ? covering(ts, k, read) : 0, clipped.coveringSeqno(key(k), read),
                        "clipped, key " + k + ", seed " + seed);
            }
            // No snapshot: one stripe, so each fragment keeps its newest tombstone only.
            RangeTombstones one = set.retained(s -> 0, false);
            RangeTombstones none = set.retained(s -> 0, true);
            assertTrue(none.isEmpty());
            for (int k = 0; k < 140; k++) {
                assertEquals(covering(ts, k, Long.MAX_VALUE), one.coveringSeqno(key(k), Long.MAX_VALUE));
            }
        }
    }

    private static List<InternalEntry> entries(int from, int to) {
        List<InternalEntry> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(InternalEntry.put(key(i), 10 + i, new byte[50]));
        }
        return out;
    }

    private FinishedTable write(Path path, TableOptions options, List<InternalEntry> entries, RangeTombstones ts)
            throws IOException {
        try (PageFile file = fixture.io.open(path, dev.strata.lsm.io.OpenMode.CREATE, dev.strata.lsm.io.IoPurpose.FLUSH)) {
            SSTableWriter writer = new SSTableWriter(file, options);
            for (InternalEntry e : entries) {
                writer.add(e);
            }
            writer.rangeTombstones(ts);
            return writer.finish();
        }
    }

    @Test
    void aTableKeepsItsTombstonesInItsExtentAndItsBoundsCoverThem() throws IOException {
        RangeTombstones ts = RangeTombstones.of(List.of(new RangeTombstones.Tombstone(key(500), key(2000), 5000),
                new RangeTombstones.Tombstone(new byte[] {0}, key(3), 7000)));
        for (TableOptions options : List.of(TableOptions.defaults(), TableOptions.defaults().withCompression(Compression.LZ4))) {
            Path p = dir.resolve(options.compression() + ".sst");
            FinishedTable t = write(p, options, entries(100, 1000), ts);
            try (PageFile f = fixture.openForRead(p)) {
                SSTableReader r = TableFixture.open(f, t, BlockCache.disabled());
                assertEquals(ts, r.rangeTombstones());
                assertArrayEquals(new byte[] {0}, r.footer().minKey());
                assertArrayEquals(key(2000), r.footer().maxKey(), "the end of the last tombstone (over by one key)");
                assertEquals(7000, r.footer().maxSeqno());
                assertArrayEquals(new byte[50], r.get(key(400)).value());
                if (!options.compression().equals(Compression.LZ4)) {
                    BitSet pages = TableLiveness.referencedPages(r);
                    assertEquals(r.footer().livePages(), pages.cardinality(), "the extent's pages are live");
                    assertTrue(pages.get((int) (r.footer().rangeTombstoneOffset() / r.footer().pageSize())));
                }
            }
        }
        // Tombstones alone: an empty tree, the extent at offset 0.
        Path only = dir.resolve("only.sst");
        FinishedTable t = write(only, TableOptions.defaults(), List.of(), ts);
        try (PageFile f = fixture.openForRead(only)) {
            SSTableReader r = TableFixture.open(f, t, BlockCache.disabled());
            assertEquals(ts, r.rangeTombstones());
            assertEquals(0, r.footer().entryCount());
            assertNull(r.get(key(600)));
        }
        // A flipped bit in the extent is corruption, named as such.
        byte[] bytes = Files.readAllBytes(only);
        bytes[10] ^= 1;
        Files.write(only, bytes);
        try (PageFile f = fixture.openForRead(only)) {
            CorruptionException e = assertThrows(CorruptionException.class, () -> TableFixture.open(f, t, BlockCache.disabled()));
            assertTrue(e.getMessage().contains("range-tombstone extent"), e.getMessage());
        }
    }
}
