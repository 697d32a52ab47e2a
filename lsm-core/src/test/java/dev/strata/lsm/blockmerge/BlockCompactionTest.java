package dev.strata.lsm.blockmerge;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.sstable.BlockMergeResult;
import dev.strata.lsm.sstable.EntryListIterator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A block compaction of one parent input into three child tables: every input entry lands in
 * exactly one child (keys between children go to the left one), each child reads back as its
 * old content merged with its slice, and a pool of two writes exactly the bytes that one
 * thread writes.
 */
class BlockCompactionTest {
    @TempDir
    Path dir;

    private final CountingStorageIO io = new CountingStorageIO(new FileChannelStorageIO());
    private final TableOptions options = TableOptions.defaults().withBloomReserve(0.4);

    static byte[] key(int k) {
        return TestKeys.padded("k", k, 6).getBytes();
    }

    private FinishedTable writeChild(Path path, int from, int to, Random rnd) throws IOException {
        try (PageFile file = io.open(path, OpenMode.CREATE, IoPurpose.FLUSH)) {
            SSTableWriter w = new SSTableWriter(file, options);
            for (int k = from; k < to; k++) {
                byte[] v = new byte[100];
                rnd.nextBytes(v);
                w.add(key(k), 1 + k, EntryType.PUT, v);
            }
            return w.finishDurably();
        }
    }

    private static List<InternalEntry> scan(SSTableReader r) throws IOException {
        List<InternalEntry> out = new ArrayList<>();
        TableIterator it = r.iterator();
        it.seekToFirst();
        while (it.valid()) {
            out.add(it.entry());
            it.next();
        }
        return out;
    }

    /** Runs the compaction over the child files in {@code sub}; returns the results. */
    private List<BlockMergeResult> compact(Path sub, List<FinishedTable> tables, List<InternalEntry> input,
                                           ExecutorService pool) throws IOException {
        List<PageFile> files = new ArrayList<>();
        try {
            List<BlockCompaction.Child> children = new ArrayList<>();
            for (int i = 0; i < tables.size(); i++) {
                PageFile f = io.open(sub.resolve("child" + i + ".sst"), OpenMode.READ_WRITE, IoPurpose.MERGE);
                files.add(f);
                children.add(new BlockCompaction.Child(f, SSTableReader.open(f, tables.get(i).footerOffset(), i,
                        BlockCache.disabled()), options));
            }
            return BlockCompaction.run(children, () -> new EntryListIterator(input),
                    () -> new VersionRetention(new long[0], false)::keep, pool);
        } finally {
            for (PageFile f : files) {
                f.close();
            }
        }
    }

    @Test
    void eachInputEntryLandsInOneChildAndThePoolSizeDoesNotChangeTheBytes() throws Exception {
        Random rnd = new Random(TestSeed.orDefault(99));
        Path one = Files.createDirectories(dir.resolve("one"));
        Path two = Files.createDirectories(dir.resolve("two"));
        int[][] ranges = {{100, 400}, {500, 800}, {900, 1200}};
        List<FinishedTable> tables = new ArrayList<>();
        for (int i = 0; i < ranges.length; i++) {
            tables.add(writeChild(one.resolve("child" + i + ".sst"), ranges[i][0], ranges[i][1], rnd));
            Files.copy(one.resolve("child" + i + ".sst"), two.resolve("child" + i + ".sst"));
        }
        TreeMap<Integer, InternalEntry> input = new TreeMap<>();
        long seq = 10_000;
        while (input.size() < 300) {
            int k = rnd.nextInt(1400);
            byte[] v = new byte[100];
            rnd.nextBytes(v);
            input.put(k, InternalEntry.put(key(k), seq++, v));
        }
        List<InternalEntry> sorted = new ArrayList<>(input.values());

        IoStats before = io.counters().snapshot();
        List<BlockMergeResult> serial;
        ExecutorService single = Executors.newSingleThreadExecutor();
        try {
            serial = compact(one, tables, sorted, single);
        } finally {
            single.shutdown();
        }
        long written = io.counters().snapshot().minus(before).bytesWritten(IoPurpose.MERGE);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<BlockMergeResult> parallel;
        try {
            parallel = compact(two, tables, sorted, pool);
        } finally {
            pool.shutdown();
        }
        assertEquals(written, serial.stream().mapToLong(BlockMergeResult::bytesWritten).sum());
        for (int i = 0; i < ranges.length; i++) {
            assertArrayEquals(Files.readAllBytes(one.resolve("child" + i + ".sst")),
                    Files.readAllBytes(two.resolve("child" + i + ".sst")), "child " + i + " differs between pool sizes");
            assertEquals(serial.get(i).table(), parallel.get(i).table());
        }
        // Child i holds its old keys (newest version) plus the input keys of its slice.
        try (PageFile f0 = io.open(one.resolve("child0.sst"), OpenMode.READ, IoPurpose.READ);
             PageFile f1 = io.open(one.resolve("child1.sst"), OpenMode.READ, IoPurpose.READ);
             PageFile f2 = io.open(one.resolve("child2.sst"), OpenMode.READ, IoPurpose.READ)) {
            PageFile[] files = {f0, f1, f2};
            int[] cuts = {Integer.MIN_VALUE, 500, 900, Integer.MAX_VALUE};
            int total = 0;
            for (int i = 0; i < 3; i++) {
                List<InternalEntry> got = scan(SSTableReader.open(files[i], serial.get(i).table().footerOffset(), i,
                        BlockCache.disabled()));
                TreeMap<Integer, Long> expectedSeq = new TreeMap<>();
                for (int k = ranges[i][0]; k < ranges[i][1]; k++) {
                    expectedSeq.put(k, 1L + k);
                }
                for (var e : input.entrySet()) {
                    if (e.getKey() >= cuts[i] && e.getKey() < cuts[i + 1]) {
                        expectedSeq.put(e.getKey(), e.getValue().seqno());
                    }
                }
                assertEquals(expectedSeq.size(), got.size(), "child " + i);
                int j = 0;
                for (var e : expectedSeq.entrySet()) {
                    assertTrue(Arrays.equals(key(e.getKey()), got.get(j).key()), "child " + i + " entry " + j);
                    assertEquals(e.getValue(), got.get(j).seqno(), "child " + i + " entry " + j);
                    j++;
                }
                total += got.size();
            }
            long updated = input.keySet().stream().filter(k -> (k >= 100 && k < 400) || (k >= 500 && k < 800)
                    || (k >= 900 && k < 1200)).count();
            assertEquals(900 + 300 - updated, total);
        }
    }

    @Test
    void overlappingChildrenAreRejected() throws IOException {
        Random rnd = new Random(1);
        FinishedTable a = writeChild(dir.resolve("child0.sst"), 0, 100, rnd);
        FinishedTable b = writeChild(dir.resolve("child1.sst"), 50, 150, rnd);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> compact(dir, List.of(a, b), List.of(), pool));
            assertTrue(e.getMessage().contains("without overlap"), e.getMessage());
        } finally {
            pool.shutdown();
        }
    }
}
