package dev.strata.lsm.io.direct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.sstable.BlockMergeResult;
import dev.strata.lsm.sstable.BlockMergeWriter;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.EntryListIterator;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableLiveness;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-place table merges through the native provider (O_DIRECT where the file system allows
 * it), then hole punching of every page no live version references: the file's allocated
 * blocks shrink by the punched pages (within the file system's extent metadata), its size does not change, and the live
 * version reads identically. Skipped, with the reason, where the file system cannot punch.
 */
class BlockMergeHolePunchTest {
    private static final int PAGE = 4096;

    @TempDir
    Path tmp;

    /** 1 KiB: random, or (compressed tables) half random bytes, half repeated text. */
    private static byte[] value(Random rnd, dev.strata.lsm.Compression compression) {
        byte[] v = new byte[1024];
        rnd.nextBytes(v);
        if (compression != dev.strata.lsm.Compression.NONE) {
            for (int i = 0; i < v.length; i++) {
                if (i % 64 >= 32) {
                    v[i] = (byte) ('a' + i % 7);
                }
            }
        }
        return v;
    }

    private static byte[] key(int k) {
        return TestKeys.padded("user", k, 28).getBytes();
    }

    private static List<InternalEntry> scan(SSTableReader reader) throws IOException {
        List<InternalEntry> out = new ArrayList<>();
        var it = reader.iterator();
        it.seekToFirst();
        while (it.valid()) {
            out.add(it.entry());
            it.next();
        }
        return out;
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"none", "lz4"})
    void punchingDeadPagesOfAMergedTableFreesExactlyThemAndKeepsTheLiveVersion(String codec) throws Exception {
        dev.strata.lsm.Compression compression = dev.strata.lsm.Compression.fromName(codec);
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        Assumptions.assumeTrue(io.capabilities(tmp).punchHole(), "the file system of " + tmp + " cannot punch holes");
        Random rnd = new Random(TestSeed.orDefault(11));
        // lz4: packed frames, merged in place with spanning page maps; dead frames punched by whole pages.
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4).withCompression(compression);
        TreeMap<String, InternalEntry> model = new TreeMap<>();
        Path path = tmp.resolve("000001.sst");
        FinishedTable table;
        long seq = 1;
        try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            SSTableWriter writer = new SSTableWriter(file, options);
            for (int k = 0; k < 2000; k++) {
                byte[] v = value(rnd, compression);
                InternalEntry e = InternalEntry.put(key(k), seq++, v);
                writer.add(e);
                model.put(new String(e.key()), e);
            }
            table = writer.finishDurably();
        }
        for (int round = 0; round < 4; round++) {
            java.util.TreeSet<Integer> picked = new java.util.TreeSet<>();
            while (picked.size() < 200) {
                picked.add(rnd.nextInt(2000));
            }
            List<InternalEntry> input = new ArrayList<>();
            for (int k : picked) {
                byte[] v = value(rnd, compression);
                InternalEntry e = InternalEntry.put(key(k), seq++, v);
                input.add(e);
                model.put(new String(e.key()), e);
            }
            try (PageFile file = io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                // Newest version per key only (a middle-level merge without snapshots).
                byte[][] last = {null};
                BlockMergeResult r = BlockMergeWriter.merge(file, base, options, in, (k, s, t) -> {
                    boolean keep = last[0] == null || !java.util.Arrays.equals(last[0], k);
                    last[0] = k;
                    return keep;
                });
                file.force(true);
                table = r.table();
            }
        }
        long blocksBefore = NativeStorageIOTest.blocks(path);
        long size = Files.size(path);
        long punched = 0;
        try (PageFile file = io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader live = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
            for (TableLiveness.PageRun run : TableLiveness.unreferencedPages(List.of(live))) {
                file.punchHole(run.offset(PAGE), run.length(PAGE));
                punched += run.length(PAGE);
            }
            file.force(true);
            long referenced = (long) TableLiveness.referencedPages(live).cardinality() * PAGE;
            assertEquals(size - referenced, punched, "every page but those live bytes touch is punched");
            if (compression == dev.strata.lsm.Compression.NONE) {
                assertEquals(size - table.footer().liveBytes(), punched, "every page but the live ones is punched");
            } else {
                assertTrue(table.footer().spanningMap() && punched > 0, "dead frames punched: " + punched);
            }
        }
        long blocksAfter = NativeStorageIOTest.blocks(path);
        assertEquals(size, Files.size(path), "punching keeps the file size");
        // st_blocks also counts the file system's extent metadata, which grows a little as the
        // file fragments: the blocks freed are the punched pages less at most 1% of them.
        long freed = blocksBefore - blocksAfter;
        assertTrue(freed <= punched / 512 && freed >= punched / 512 * 0.99,
                "punched " + punched / 512 + " blocks, freed " + freed);
        try (PageFile file = io.open(path, OpenMode.READ, IoPurpose.READ)) {
            SSTableReader live = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
            assertEquals(new ArrayList<>(model.values()), scan(live));
        }
        System.out.printf("4 in-place merges of 10%% updates into a 2000-key table: file %d bytes, live %d bytes,"
                + " allocated %d -> %d bytes after punching %d bytes%n", size, table.footer().liveBytes(),
                blocksBefore * 512, blocksAfter * 512, punched);
    }
}
