package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.Compression;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In-place merges of compressed (packed) tables ({@link BlockMergeWriter} with a spanning page
 * map): per codec and leaf encoding, a chain of versions in one file reads as the model; every
 * clean leaf keeps its frame where it is (the new map names the same bytes, none of them is
 * written again); new pages are compressed with the table's codec; and the pages liveness
 * calls dead hold nothing a live version reads: zeroing them all (what hole punching does)
 * leaves the newest version reading exactly as before. Replay with {@code -Dstrata.test.seed=N}.
 */
class CompressedBlockMergeTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    static Stream<Arguments> codecs() {
        List<Arguments> out = new ArrayList<>();
        for (Compression c : new Compression[]{Compression.LZ4, Compression.ZSTD, Compression.SNAPPY}) {
            for (LeafEncoding e : LeafEncoding.values()) {
                out.add(Arguments.of(c, e));
            }
        }
        return out.stream();
    }

    /** A value that compresses to about a third: text with a random part. */
    static byte[] value(Random rnd) {
        int n = rnd.nextInt(150) == 0 ? 3000 + rnd.nextInt(6000) : 20 + rnd.nextInt(240);
        byte[] v = new byte[n];
        for (int i = 0; i < n; i++) {
            v[i] = (byte) (i % 3 == 0 ? rnd.nextInt(256) : 'a' + i % 11);
        }
        return v;
    }

    private static List<InternalEntry> newEntries(Random rnd, int keySpace, long[] seq) {
        List<InternalEntry> random = BlockMergeWriterTest.newEntries(rnd, keySpace, seq);
        List<InternalEntry> out = new ArrayList<>(random.size());
        for (InternalEntry e : random) {
            out.add(e.isTombstone() ? e : InternalEntry.put(e.key(), e.seqno(), value(rnd)));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}, {1} leaves")
    @MethodSource("codecs")
    void chainOfInPlaceMergesOfACompressedTable(Compression codec, LeafEncoding encoding) throws IOException {
        long seed = TestSeed.orRandom();
        System.out.println("CompressedBlockMergeTest seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        int keySpace = 3000;
        long[] seq = {1};
        TreeMap<InternalEntry, InternalEntry> model = BlockMergeWriterTest.model();
        for (int k = 0; k < keySpace; k++) {
            if (rnd.nextInt(10) < 6) {
                InternalEntry e = InternalEntry.put(BlockMergeWriterTest.key(k), seq[0]++, value(rnd));
                model.put(e, e);
            }
        }
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4).withCompression(codec)
                .withLeafEncoding(encoding, 16);
        Path path = dir.resolve("chain.sst");
        FinishedTable table = fixture.write(path, options, new ArrayList<>(model.keySet()));
        assertTrue(table.footer().packed() && !table.footer().spanningMap(), table.footer().toString());
        List<FinishedTable> versions = new ArrayList<>(List.of(table));
        List<List<InternalEntry>> contents = new ArrayList<>(List.of(new ArrayList<>(model.keySet())));
        int reusedTotal = 0;
        for (int round = 0; round < 8; round++) {
            String where = codec + "/" + encoding + " seed " + seed + " round " + round;
            FinishedTable prev = versions.get(versions.size() - 1);
            List<InternalEntry> input = newEntries(rnd, keySpace, seq);
            for (InternalEntry e : input) {
                model.put(e, e);
            }
            BlockMergeResult result;
            Map<Integer, long[]> baseFrames = new HashMap<>();
            IoStats before;
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, prev.footerOffset(), 1, BlockCache.disabled());
                for (LeafRef leaf : LeafIndex.leaves(base)) {
                    baseFrames.put(leaf.page(), new long[]{base.mappedOffset(leaf.page()), base.mappedLength(leaf.page())});
                }
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                BlockMergePlan plan = BlockMergePlan.of(base, in);
                assertEquals(base.footer().storedBytes(), plan.liveBytes(), where + ": valid size as stored");
                before = fixture.io.counters().snapshot();
                in.seekToFirst();
                result = BlockMergeWriter.merge(file, base, options, in, BlockMergeWriter.Retention.keepAll());
                assertEquals(plan.dirtyLeaves(), result.dirtyLeavesMerged(), where);
            }
            IoStats io = fixture.io.counters().snapshot().minus(before);
            Footer f = result.table().footer();
            assertEquals(codec, f.compression(), where + ": the table keeps its codec");
            assertEquals(encoding, f.leafEncoding(), where);
            assertTrue(f.spanningMap(), where);
            assertEquals(result.bytesWritten(), io.bytesWritten(IoPurpose.MERGE), where);
            assertEquals(result.physicalBytes() - prev.endOffset(), result.bytesWritten(), where);
            assertEquals(Files.size(path), result.physicalBytes(), where);
            reusedTotal += result.leavesReused();
            versions.add(result.table());
            contents.add(new ArrayList<>(model.keySet()));
            try (PageFile file = fixture.openForRead(path)) {
                SSTableReader reader = SSTableReader.open(file, result.table().footerOffset(), 1, BlockCache.create(4 << 20));
                int reused = 0;
                long referenced = 0;
                for (LeafRef leaf : LeafIndex.leaves(reader)) {
                    long[] frame = baseFrames.get(leaf.page());
                    if (frame != null) {
                        // A clean leaf: the same frame, where it was; not a byte of it written again.
                        assertEquals(frame[0], reader.mappedOffset(leaf.page()), where + ": leaf " + leaf.page());
                        assertEquals(frame[1], reader.mappedLength(leaf.page()), where + ": leaf " + leaf.page());
                        assertTrue(frame[0] < prev.endOffset(), where);
                        reused++;
                    } else {
                        assertTrue(reader.mappedOffset(leaf.page()) >= prev.endOffset(), where + ": a new leaf is appended");
                    }
                    assertTrue(reader.mappedLength(leaf.page()) <= 4096 + 16, where + ": a frame");
                }
                assertEquals(result.leavesReused(), reused, where);
                for (int p = reader.mapBase(); p < reader.mapBase() + reader.mappedPages(); p++) {
                    referenced += reader.mappedLength(p);
                }
                assertEquals(f.storedBytes(), referenced + f.pageMapLength() + f.pageSize(), where + ": stored bytes");
                // Every version in the file still reads as it did.
                for (int v = 0; v < versions.size(); v++) {
                    SSTableReader r = SSTableReader.open(file, versions.get(v).footerOffset(), 1, BlockCache.disabled());
                    assertEquals(contents.get(v), BlockMergeWriterTest.scan(r), where + ": version " + v);
                }
                assertEquals(contents.get(contents.size() - 1).size(), f.entryCount(), where);
            }
        }
        assertTrue(reusedTotal > 0, "clean leaves were reused");
        // What hole punching releases holds nothing the newest version reads: zero it all in a copy.
        FinishedTable newest = versions.get(versions.size() - 1);
        Path copy = dir.resolve("punched.sst");
        Files.copy(path, copy, StandardCopyOption.REPLACE_EXISTING);
        long deadBytes = 0;
        try (PageFile file = fixture.io.open(copy, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader reader = SSTableReader.open(file, newest.footerOffset(), 1, BlockCache.disabled());
            for (TableLiveness.PageRun run : TableLiveness.unreferencedPages(List.of(reader))) {
                java.nio.ByteBuffer zeros = dev.strata.lsm.io.AlignedBuffers.allocate((int) run.length(4096), 4096);
                file.write(zeros, run.offset(4096));
                deadBytes += run.length(4096);
            }
            file.force(true);
        }
        assertTrue(deadBytes > 0, "earlier versions' dead frames make whole dead pages");
        assertTrue(deadBytes < newest.endOffset(), "not everything is dead");
        try (PageFile file = fixture.openForRead(copy)) {
            SSTableReader reader = SSTableReader.open(file, newest.footerOffset(), 1, BlockCache.disabled());
            assertEquals(contents.get(contents.size() - 1), BlockMergeWriterTest.scan(reader),
                    "the newest version with every dead page zeroed");
        }
    }

    /**
     * A damaged spanning page map or page map kind is a {@link dev.strata.lsm.CorruptionException}
     * at open, never a misread: every byte of the map (header included) is under its CRC32C, and
     * footer byte 134 must say "spanning" exactly for a packed version with a previous one.
     */
    @Test
    void aDamagedSpanningPageMapIsCorruption() throws IOException {
        Random rnd = new Random(TestSeed.orDefault(9));
        List<InternalEntry> base = new ArrayList<>();
        for (int k = 0; k < 1500; k++) {
            base.add(InternalEntry.put(BlockMergeWriterTest.key(k), k + 1, value(rnd)));
        }
        TableOptions lz4 = TableOptions.defaults().withCompression(Compression.LZ4);
        Path path = dir.resolve("t.sst");
        FinishedTable v1 = fixture.write(path, lz4, base);
        FinishedTable v2;
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            EntryListIterator in = new EntryListIterator(List.of(
                    InternalEntry.put(BlockMergeWriterTest.key(700), 99_999, value(rnd))));
            in.seekToFirst();
            v2 = BlockMergeWriter.merge(file, SSTableReader.open(file, v1.footerOffset(), 1, BlockCache.disabled()),
                    lz4, in, BlockMergeWriter.Retention.keepAll()).table();
        }
        Footer f = v2.footer();
        assertTrue(f.spanningMap());
        byte[] original = Files.readAllBytes(path);
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            offsets.add(f.pageMapOffset() + rnd.nextInt(f.pageMapLength()));
        }
        offsets.add(f.pageMapOffset());
        offsets.add(v2.footerOffset() + 134);
        for (long at : offsets) {
            byte[] damaged = original.clone();
            damaged[(int) at] ^= (byte) (1 + rnd.nextInt(255));
            Path copy = dir.resolve("damaged.sst");
            Files.write(copy, damaged);
            try (PageFile file = fixture.openForRead(copy)) {
                org.junit.jupiter.api.Assertions.assertThrows(dev.strata.lsm.CorruptionException.class,
                        () -> SSTableReader.open(file, v2.footerOffset(), 1, BlockCache.disabled()), "byte " + at);
            }
        }
    }

    /**
     * A merge across codecs: entries read from a zstd table are merged in place into an lz4
     * table (and then from an unpacked table into it): it stays lz4, and reads as the model.
     */
    @Test
    void entriesOfATableOfAnotherCodecMergeIntoACompressedTable() throws IOException {
        Random rnd = new Random(TestSeed.orDefault(3));
        TreeMap<InternalEntry, InternalEntry> model = BlockMergeWriterTest.model();
        long[] seq = {1};
        for (int k = 0; k < 2000; k++) {
            InternalEntry e = InternalEntry.put(BlockMergeWriterTest.key(k), seq[0]++, value(rnd));
            model.put(e, e);
        }
        TableOptions lz4 = TableOptions.defaults().withCompression(Compression.LZ4);
        Path path = dir.resolve("lz4.sst");
        FinishedTable table = fixture.write(path, lz4, new ArrayList<>(model.keySet()));
        Compression[] others = {Compression.ZSTD, Compression.NONE, Compression.SNAPPY};
        for (int i = 0; i < others.length; i++) {
            List<InternalEntry> input = newEntries(rnd, 2000, seq);
            Path other = dir.resolve("input-" + i + ".sst");
            FinishedTable in = fixture.write(other, TableOptions.defaults().withCompression(others[i]), input);
            assertEquals(others[i] != Compression.NONE, in.footer().packed());
            for (InternalEntry e : input) {
                model.put(e, e);
            }
            try (PageFile source = fixture.openForRead(other);
                 PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                TableIterator it = SSTableReader.open(source, in.footerOffset(), 2, BlockCache.disabled()).iterator();
                it.seekToFirst();
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                table = BlockMergeWriter.merge(file, base, lz4, it, BlockMergeWriter.Retention.keepAll()).table();
                assertEquals(Compression.LZ4, table.footer().compression(), others[i] + " into lz4");
                SSTableReader after = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                assertEquals(new ArrayList<>(model.keySet()), BlockMergeWriterTest.scan(after), others[i] + " into lz4");
            }
        }
    }
}
