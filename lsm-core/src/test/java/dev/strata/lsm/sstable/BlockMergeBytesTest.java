package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bytes of a chain of in-place merges into one table at the scaled BlockDB configuration of
 * FAMILIES.md 2.6 (32-byte keys, 1 KiB values, 4 KiB pages, a 2 MiB table, bloom reserve 0.4):
 * each merge brings uniform updates of 10% of the table's keys (one parent table's slice at
 * size ratio 10). Measured from the IO counters and compared with rewriting the same content
 * as a new table; logical (live) versus physical file bytes after each merge. Prints the
 * figures; asserts the accounting and that in-place merging writes less than a rewrite.
 */
class BlockMergeBytesTest {
    @TempDir
    Path dir;

    @Test
    void chainOfUniformUpdateMergesAtTheScaledConfiguration() throws IOException {
        Random rnd = new Random(TestSeed.orDefault(2026));
        TableFixture fixture = new TableFixture();
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4);
        int keys = 2000; // 2000 x ~1.07 KB = about 2 MiB
        long seq = 1;
        TreeMap<InternalEntry, InternalEntry> model = BlockMergeWriterTest.model();
        for (int k = 0; k < keys; k++) {
            InternalEntry e = InternalEntry.put(key32(k), seq++, value(rnd));
            model.put(e, e);
        }
        Path path = dir.resolve("child.sst");
        FinishedTable table = fixture.write(path, options, new ArrayList<>(model.keySet()));
        System.out.printf("table: %d keys, %d leaves, %d bytes%n", keys, table.footer().leafCount(), table.endOffset());
        System.out.println("merge  input  dirty/leaves  written(B)  rewrite(B)  written/rewrite  logical(B)  physical(B)  bloom");
        long totalWritten = 0;
        long totalRewrite = 0;
        for (int round = 1; round <= 10; round++) {
            TreeSet<Integer> picked = new TreeSet<>();
            while (picked.size() < keys / 10) {
                picked.add(rnd.nextInt(keys));
            }
            List<InternalEntry> input = new ArrayList<>();
            for (int k : picked) {
                input.add(InternalEntry.put(key32(k), seq++, value(rnd)));
            }
            input.sort((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
            // Newest version per key: what a non-bottommost merge without snapshots keeps.
            for (InternalEntry e : input) {
                model.keySet().removeIf(old -> java.util.Arrays.equals(old.key(), e.key()));
                model.put(e, e);
            }
            BlockMergeResult r;
            IoStats before = fixture.io.counters().snapshot();
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                r = BlockMergeWriter.merge(file, base, options, in, new VersionRetention(new long[0], false)::keep);
            }
            IoStats io = fixture.io.counters().snapshot().minus(before);
            assertEquals(r.bytesWritten(), io.bytesWritten(IoPurpose.MERGE));
            table = r.table();
            // The same content written as a new table (what table compaction writes for this file).
            Path rewrite = dir.resolve("rewrite-" + round + ".sst");
            long rewriteBytes = fixture.write(rewrite, options, new ArrayList<>(model.keySet())).endOffset();
            Files.delete(rewrite);
            try (PageFile file = fixture.openForRead(path)) {
                SSTableReader merged = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                assertEquals(new ArrayList<>(model.keySet()), BlockMergeWriterTest.scan(merged));
            }
            System.out.printf("%5d  %5d  %5d/%-6d  %10d  %10d  %15.3f  %10d  %11d  %s%n", round, input.size(),
                    r.dirtyLeavesMerged(), r.table().footer().leafCount(), r.bytesWritten(), rewriteBytes,
                    (double) r.bytesWritten() / rewriteBytes, r.logicalBytes(), r.physicalBytes(),
                    r.bloomRebuilt() ? "rebuilt" : r.table().footer().bloomKeys() + "/" + r.table().footer().bloomCapacity());
            totalWritten += r.bytesWritten();
            totalRewrite += rewriteBytes;
        }
        System.out.printf("total: in-place %d bytes, rewrite %d bytes, ratio %.3f%n", totalWritten, totalRewrite,
                (double) totalWritten / totalRewrite);
        assertTrue(totalWritten < totalRewrite, "in-place merging must write less than rewriting");
    }

    /**
     * Inserts instead of updates, with 100-byte values (about 30 entries per leaf): each merge
     * adds new keys (5% of the table) spread uniformly, so dirty leaves grow and split. Prints
     * the leaves written per merge and the table's leaf count. (Without balanced cuts this
     * chain ended with 3797 leaves and wrote 1.013 x a rewrite; with them, see the output.)
     */
    @Test
    void chainOfUniformInsertMerges() throws IOException {
        Random rnd = new Random(TestSeed.orDefault(2027));
        TableFixture fixture = new TableFixture();
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4);
        TreeMap<InternalEntry, InternalEntry> model = BlockMergeWriterTest.model();
        long seq = 1;
        for (int k = 0; k < 20_000; k++) {
            byte[] v = new byte[100];
            rnd.nextBytes(v);
            InternalEntry e = InternalEntry.put(key32(k * 1000), seq++, v);
            model.put(e, e);
        }
        Path path = dir.resolve("inserts.sst");
        FinishedTable table = fixture.write(path, options, new ArrayList<>(model.keySet()));
        System.out.printf("insert table: %d keys, %d leaves%n", model.size(), table.footer().leafCount());
        System.out.println("merge  input  dirty  leavesWritten  leaves  written(B)  rewrite(B)");
        long written = 0;
        long rewritten = 0;
        int rewriteLeaves = 0;
        for (int round = 1; round <= 10; round++) {
            TreeSet<Integer> picked = new TreeSet<>();
            while (picked.size() < 1000) {
                int k = rnd.nextInt(20_000 * 1000);
                if (k % 1000 != 0) {
                    picked.add(k);
                }
            }
            List<InternalEntry> input = new ArrayList<>();
            for (int k : picked) {
                byte[] v = new byte[100];
                rnd.nextBytes(v);
                InternalEntry e = InternalEntry.put(key32(k), seq++, v);
                input.add(e);
                model.put(e, e);
            }
            BlockMergeResult r;
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                r = BlockMergeWriter.merge(file, base, options, in, BlockMergeWriter.Retention.keepAll());
            }
            table = r.table();
            Path rewrite = dir.resolve("rewrite-ins-" + round + ".sst");
            FinishedTable rewritten1 = fixture.write(rewrite, options, new ArrayList<>(model.keySet()));
            long rewriteBytes = rewritten1.endOffset();
            rewriteLeaves = rewritten1.footer().leafCount();
            Files.delete(rewrite);
            System.out.printf("%5d  %5d  %5d  %13d  %6d  %10d  %10d%n", round, input.size(), r.dirtyLeavesMerged(),
                    r.leavesWritten(), table.footer().leafCount(), r.bytesWritten(), rewriteBytes);
            written += r.bytesWritten();
            rewritten += rewriteBytes;
        }
        try (PageFile file = fixture.openForRead(path)) {
            assertEquals(new ArrayList<>(model.keySet()),
                    BlockMergeWriterTest.scan(SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled())));
        }
        System.out.printf("insert total: in-place %d bytes, rewrite %d bytes, ratio %.3f%n", written, rewritten,
                (double) written / rewritten);
        assertTrue(written < rewritten);
        // Balanced cuts keep leaves at least about half full: no more than twice a rewrite's leaves.
        assertTrue(table.footer().leafCount() <= 2 * rewriteLeaves, table.footer().leafCount() + " leaves after the"
                + " merges, " + rewriteLeaves + " in a rewrite");
    }

    static byte[] key32(int k) {
        return TestKeys.padded("user", k, 28).getBytes();
    }

    static byte[] value(Random rnd) {
        byte[] v = new byte[1024];
        rnd.nextBytes(v);
        return v;
    }
}
