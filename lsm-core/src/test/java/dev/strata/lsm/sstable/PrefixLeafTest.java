package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Prefix-compressed leaves (leaf encoding 1): every reader path — scans both ways, point
 * lookups at every snapshot, seeks and seekForPrev, random walks — reads what was written, per
 * page size and restart interval (1, the default 16, and one larger than any leaf's cell
 * count), for keys with long shared prefixes, with none, and of the maximum size.
 */
class PrefixLeafTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    /** Sorted entries whose keys are {@code prefix} bytes shared by all, then a random tail, with versions and tombstones. */
    static List<InternalEntry> entries(Random rnd, int n, int prefix, int minTail, int maxTail, int maxValue) {
        byte[] common = new byte[prefix];
        rnd.nextBytes(common);
        List<InternalEntry> base = TableFixture.randomEntries(rnd, n, minTail, maxTail, 0, maxValue);
        List<InternalEntry> out = new ArrayList<>(base.size());
        for (InternalEntry e : base) {
            byte[] k = new byte[prefix + e.key().length];
            System.arraycopy(common, 0, k, 0, prefix);
            System.arraycopy(e.key(), 0, k, prefix, e.key().length);
            out.add(new InternalEntry(k, e.seqno(), e.type(), e.value()));
        }
        return out;
    }

    private void checkEverything(TableOptions options, List<InternalEntry> entries, String what) throws IOException {
        Path path = dir.resolve("t-" + System.nanoTime() + ".sst");
        FinishedTable table = fixture.write(path, options, entries);
        assertEquals(LeafEncoding.PREFIX, table.footer().leafEncoding(), what);
        assertEquals(Files.size(path), table.endOffset(), what);
        Random rnd = new Random(entries.size());
        for (BlockCache cache : List.of(BlockCache.disabled(), BlockCache.create(8 << 20))) {
            try (PageFile file = fixture.openForRead(path)) {
                SSTableReader reader = TableFixture.open(file, table, cache);
                assertEquals(table.footer(), reader.footer(), what);
                TableIterator it = reader.iterator();
                List<InternalEntry> read = new ArrayList<>();
                for (it.seekToFirst(); it.valid(); it.next()) {
                    read.add(it.entry());
                }
                assertEquals(entries, read, what + ": forward scan");
                List<InternalEntry> backwards = new ArrayList<>();
                for (it.seekToLast(); it.valid(); it.prev()) {
                    backwards.add(it.entry());
                }
                java.util.Collections.reverse(backwards);
                assertEquals(entries, backwards, what + ": backward scan");
                InternalEntry newest = null;
                for (InternalEntry e : entries) {
                    assertEquals(e, reader.get(e.key(), e.seqno()), what);
                    if (newest == null || !Arrays.equals(newest.key(), e.key())) {
                        newest = e;
                        assertEquals(e, reader.get(e.key()), what);
                        // A key just after this one, which no entry has, is absent.
                        byte[] absent = Arrays.copyOf(e.key(), e.key().length + 1);
                        absent[absent.length - 1] = 0;
                        InternalEntry got = reader.get(absent);
                        assertTrue(got == null || Arrays.equals(got.key(), absent), what);
                    }
                }
                IteratorWalk.walk(reader.iterator(), entries, rnd, 800, TableIteratorBothWaysTest.targets(entries),
                        what);
            }
        }
    }

    @ParameterizedTest(name = "{0}-byte pages, restart interval {1}")
    @CsvSource({"4096, 1", "4096, 16", "4096, 1024", "65536, 1", "65536, 16", "65536, 1024"})
    void roundTripPerPageSizeAndRestartInterval(int pageSize, int interval) throws IOException {
        TableOptions options = new TableOptions(pageSize, 10).withLeafEncoding(LeafEncoding.PREFIX, interval);
        Random rnd = new Random(pageSize + interval);
        checkEverything(options, entries(rnd, 1_500, 40, 1, 6, 50), "long shared prefixes");
        checkEverything(options, entries(rnd, 1_500, 0, 1, 24, 50), "random keys, no shared prefix");
        checkEverything(options, entries(rnd, 200, 0, 1, 30, 9_000), "overflow values among inline ones");
        int max = options.maxKeySize();
        checkEverything(options, entries(rnd, pageSize == 4096 ? 120 : 24, max - 4, 4, 4, 20), "maximum-size keys");
        checkEverything(options, entries(rnd, 1, 0, 1, 5, 20), "a single entry");
    }

    @Test
    void extremeTagsAndValues() throws IOException {
        List<InternalEntry> entries = new ArrayList<>();
        entries.add(InternalEntry.put(new byte[0], InternalKeys.MAX_SEQNO, new byte[0]));
        entries.add(InternalEntry.delete(new byte[0], 0));
        for (int i = 0; i < 200; i++) {
            byte[] k = {1, 2, 3, (byte) (i >> 4), (byte) i};
            long seq = i % 3 == 0 ? InternalKeys.MAX_SEQNO - i : i % 3 == 1 ? i : 1L << (7 * (i % 8));
            entries.add(i % 5 == 0 ? InternalEntry.delete(k, seq)
                    : new InternalEntry(k, seq, i % 7 == 0 ? EntryType.MERGE : EntryType.PUT, new byte[i % 70]));
        }
        entries.sort((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
        for (int interval : new int[] {1, 3, 16}) {
            checkEverything(TableOptions.defaults().withLeafEncoding(LeafEncoding.PREFIX, interval), entries,
                    "interval " + interval);
        }
    }

    @Test
    void prefixLeavesHoldMoreEntriesThanPlainOnes() throws IOException {
        // The benchmark's keys: eight zero bytes, then the record number; 100-byte values.
        List<InternalEntry> entries = new ArrayList<>();
        Random rnd = new Random(3);
        for (int i = 0; i < 20_000; i++) {
            byte[] k = new byte[16];
            for (int b = 0; b < 8; b++) {
                k[15 - b] = (byte) ((long) i * 7919 >>> (8 * b));
            }
            byte[] v = new byte[100];
            rnd.nextBytes(v);
            entries.add(InternalEntry.put(k, 1 + i, v));
        }
        entries.sort((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
        FinishedTable plain = fixture.write(dir.resolve("plain.sst"),
                TableOptions.defaults().withLeafEncoding(LeafEncoding.PLAIN, 16), entries);
        FinishedTable prefix = fixture.write(dir.resolve("prefix.sst"), TableOptions.defaults(), entries);
        assertEquals(LeafEncoding.PLAIN, plain.footer().leafEncoding());
        double perLeafPlain = (double) entries.size() / plain.footer().leafCount();
        double perLeafPrefix = (double) entries.size() / prefix.footer().leafCount();
        // Plain: 129 bytes a cell with its slot (31 a leaf); prefix: about 110 (36 or more).
        assertTrue(perLeafPlain < 32 && perLeafPrefix > 35, perLeafPlain + " against " + perLeafPrefix);
        assertTrue(Files.size(dir.resolve("prefix.sst")) < 0.9 * Files.size(dir.resolve("plain.sst")));
    }

    @Test
    void restartIntervalOutsideItsRangeIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TableOptions.defaults().withLeafEncoding(LeafEncoding.PREFIX, 0));
        assertTrue(e.getMessage().contains("restart interval must be 1 to 1024"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> TableOptions.defaults().withLeafEncoding(LeafEncoding.PREFIX, TableOptions.MAX_RESTART_INTERVAL + 1));
        assertThrows(IllegalArgumentException.class, () -> TableOptions.defaults().withLeafEncoding(null, 16));
    }

    @Test
    void plainAndPrefixTablesMergeIntoEachOther() throws IOException {
        Random rnd = new Random(9);
        List<InternalEntry> a = entries(rnd, 2_000, 10, 1, 8, 40);
        FinishedTable plain = fixture.write(dir.resolve("a.sst"),
                TableOptions.defaults().withLeafEncoding(LeafEncoding.PLAIN, 16), a);
        try (PageFile file = fixture.openForRead(dir.resolve("a.sst"))) {
            SSTableReader reader = TableFixture.open(file, plain, BlockCache.disabled());
            assertEquals(LeafEncoding.PLAIN, reader.footer().leafEncoding());
            TableIterator it = reader.iterator();
            it.seekToFirst();
            List<InternalEntry> copied = new ArrayList<>();
            while (it.valid()) {
                copied.add(it.entry());
                it.next();
            }
            // Rewriting a plain table's entries gives a prefix table holding the same.
            checkEverything(TableOptions.defaults(), copied, "rewritten from a plain table");
        }
        assertEquals(a.size(), plain.footer().entryCount());
    }
}
