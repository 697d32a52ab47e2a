package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In-place merges of a table ({@link BlockMergeWriter}) against a model: a chain of versions
 * in one file, each read back equal to the merge of the previous one and the new entries,
 * every earlier version still readable. Replay with {@code -Dstrata.test.seed=N}; run more
 * histories with {@code -Dstrata.test.multiplier=N} (6 times N).
 */
class BlockMergeWriterTest {
    static final int PAGE = 4096;

    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    static LongStream seeds() {
        if (TestSeed.fixed().isPresent()) {
            return LongStream.of(TestSeed.fixed().getAsLong());
        }
        int n = TestScale.scaled(6);
        long base = System.nanoTime();
        return LongStream.range(0, n).map(i -> base + i * 7919);
    }

    /** Internal-key order over entries. */
    static TreeMap<InternalEntry, InternalEntry> model() {
        return new TreeMap<>((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
    }

    static byte[] key(int i) {
        return TestKeys.padded("key", i, 7).getBytes();
    }

    static byte[] value(Random rnd) {
        byte[] v = new byte[rnd.nextInt(200) == 0 ? 2500 + rnd.nextInt(9000) : rnd.nextInt(260)];
        rnd.nextBytes(v);
        return v;
    }

    static List<InternalEntry> scan(SSTableReader reader) throws IOException {
        List<InternalEntry> out = new ArrayList<>();
        TableIterator it = reader.iterator();
        it.seekToFirst();
        while (it.valid()) {
            out.add(it.entry());
            it.next();
        }
        return out;
    }

    /** New entries: a few clustered windows of keys and some scattered ones, all newer than {@code seq}. */
    static List<InternalEntry> newEntries(Random rnd, int keySpace, long[] seq) {
        TreeSet<Integer> keys = new TreeSet<>();
        int windows = 1 + rnd.nextInt(3);
        for (int w = 0; w < windows; w++) {
            int start = rnd.nextInt(keySpace);
            int width = 1 + rnd.nextInt(80);
            for (int k = start; k < Math.min(keySpace + 200, start + width); k++) {
                if (rnd.nextInt(3) != 0) {
                    keys.add(k);
                }
            }
        }
        for (int s = rnd.nextInt(12); s > 0; s--) {
            keys.add(rnd.nextInt(keySpace + 200));
        }
        List<InternalEntry> out = new ArrayList<>();
        for (int k : keys) {
            int versions = rnd.nextInt(8) == 0 ? 2 : 1;
            long s = seq[0] + versions;
            for (int v = 0; v < versions; v++, s--) {
                out.add(rnd.nextInt(6) == 0 ? InternalEntry.delete(key(k), s) : InternalEntry.put(key(k), s, value(rnd)));
            }
            seq[0] += versions;
        }
        out.sort((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
        return out;
    }

    private record Version(FinishedTable table, List<InternalEntry> entries) {
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void chainOfInPlaceMergesReadsAsTheMergeOfOldAndNew(long seed) throws IOException {
        TestSeed.use(seed);
        System.out.println("BlockMergeWriterTest seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        int keySpace = 3000;
        long[] seq = {1};
        TreeMap<InternalEntry, InternalEntry> model = model();
        for (int k = 0; k < keySpace; k++) {
            if (rnd.nextInt(10) < 6) {
                InternalEntry e = InternalEntry.put(key(k), seq[0]++, value(rnd));
                model.put(e, e);
            }
        }
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4);
        Path path = dir.resolve("chain-" + seed + ".sst");
        List<Version> versions = new ArrayList<>();
        versions.add(new Version(fixture.write(path, options, new ArrayList<>(model.keySet())),
                new ArrayList<>(model.keySet())));
        for (int round = 0; round < 8; round++) {
            Version prev = versions.get(versions.size() - 1);
            List<InternalEntry> input = newEntries(rnd, keySpace, seq);
            for (InternalEntry e : input) {
                model.put(e, e);
            }
            BlockMergeResult result;
            BlockMergePlan plan;
            IoStats before = fixture.io.counters().snapshot();
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, prev.table().footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                plan = BlockMergePlan.of(base, in);
                before = fixture.io.counters().snapshot();
                in.seekToFirst();
                result = BlockMergeWriter.merge(file, base, options, in, BlockMergeWriter.Retention.keepAll());
            }
            IoStats io = fixture.io.counters().snapshot().minus(before);
            List<InternalEntry> expected = new ArrayList<>(model.keySet());
            Footer f = result.table().footer();
            String where = "seed " + seed + " round " + round;
            assertEquals(prev.table().footerOffset(), f.previousFooterOffset(), where);
            assertEquals(result.physicalBytes(), Files.size(path), where);
            assertEquals(result.bytesWritten(), io.bytesWritten(IoPurpose.MERGE), where);
            assertEquals(result.physicalBytes() - prev.table().endOffset(), result.bytesWritten(), where);
            assertEquals(f.leafCount(), result.leavesReused() + result.leavesWritten(), where);
            assertEquals(plan.dirtyLeaves(), result.dirtyLeavesMerged(), where + ": the plan predicts the dirty leaves");
            assertEquals(plan.leaves() - plan.dirtyLeaves(), result.leavesReused(), where);
            assertEquals(input.size(), plan.inputEntries(), where);
            assertEquals(prev.table().footer().liveBytes(), plan.liveBytes(), where);
            assertEquals(prev.table().endOffset(), plan.fileBytes(), where);
            assertTrue(result.leavesReused() > 0 || prev.table().footer().leafCount() <= result.dirtyLeavesMerged(),
                    where + ": some leaf must be clean when not every leaf is dirty");
            versions.add(new Version(result.table(), expected));

            try (PageFile file = fixture.openForRead(path)) {
                BlockCache cache = BlockCache.create(4 << 20);
                for (Version v : versions) {
                    SSTableReader reader = SSTableReader.open(file, v.table().footerOffset(), 1, cache);
                    assertEquals(v.entries(), scan(reader), where + ": version at " + v.table().footerOffset());
                }
                SSTableReader reader = SSTableReader.open(file, result.table().footerOffset(), 1, cache);
                assertEquals(expected.size(), f.entryCount(), where);
                assertEquals(expected.stream().filter(InternalEntry::isTombstone).count(), f.tombstoneCount(), where);
                assertEquals(expected.stream().mapToLong(e -> e.key().length + (e.isTombstone() ? 0 : e.value().length))
                        .sum(), f.userBytes(), where);
                assertEquals(expected.stream().mapToLong(InternalEntry::seqno).min().orElseThrow(), f.minSeqno(), where);
                assertEquals(expected.stream().mapToLong(InternalEntry::seqno).max().orElseThrow(), f.maxSeqno(), where);
                assertArrayEquals(expected.get(0).key(), f.minKey(), where);
                assertArrayEquals(expected.get(expected.size() - 1).key(), f.maxKey(), where);
                assertEquals(TableLiveness.referencedPages(reader).cardinality(), f.livePages(), where);
                InternalEntry newest = null;
                for (InternalEntry e : expected) {
                    if (newest == null || !Arrays.equals(newest.key(), e.key())) {
                        newest = e;
                        assertEquals(e, reader.get(e.key()), where);
                    }
                    assertEquals(e, reader.get(e.key(), e.seqno()), where);
                }
                assertNull(reader.get("absent".getBytes()), where);
            }
        }
    }

    /**
     * BL2 at the table layer: one new key inside each of n distinct leaves of an m-leaf table
     * reads exactly the interior pages and those n leaves, and writes exactly the new leaves,
     * interior pages, bloom and footer; the other m − n leaves are neither read nor written.
     */
    @Test
    void oneKeyInEachOfNLeavesReadsAndWritesOnlyThoseLeaves() throws IOException {
        List<InternalEntry> base = new ArrayList<>();
        Random rnd = new Random(5);
        for (int k = 0; k < 20_000; k += 2) {
            byte[] v = new byte[100];
            rnd.nextBytes(v);
            base.add(InternalEntry.put(key(k), 1, v));
        }
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4);
        Path path = dir.resolve("bl2.sst");
        FinishedTable v1 = fixture.write(path, options, base);
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader reader = SSTableReader.open(file, v1.footerOffset(), 1, BlockCache.disabled());
            List<LeafRef> leaves = new ArrayList<>();
            int[] interior = {0};
            LeafIndex.walk(reader, leaves, p -> interior[0]++);
            int m = leaves.size();
            // One odd key strictly inside each of every third leaf.
            List<InternalEntry> input = new ArrayList<>();
            for (int i = 0; i < m; i += 3) {
                if (leaves.get(i).summary().entries() < 2) {
                    continue;
                }
                int lo = Integer.parseInt(new String(leaves.get(i).minKey()).substring(3));
                input.add(InternalEntry.put(key(lo + 1), 2, new byte[100]));
            }
            int n = input.size();
            EntryListIterator in = new EntryListIterator(input);
            in.seekToFirst();
            BlockMergePlan plan = BlockMergePlan.of(reader, in);
            assertEquals(n, plan.dirtyLeaves());
            assertEquals((long) n * PAGE, plan.dirtyBytes());
            in.seekToFirst();
            IoStats before = fixture.io.counters().snapshot();
            BlockMergeResult r = BlockMergeWriter.merge(file, reader, options, in, BlockMergeWriter.Retention.keepAll());
            IoStats io = fixture.io.counters().snapshot().minus(before);
            assertEquals(n, r.dirtyLeavesMerged());
            assertEquals(m - n, r.leavesReused());
            assertEquals(false, r.bloomRebuilt());
            assertEquals((long) (interior[0] + n) * PAGE, io.bytesRead(IoPurpose.MERGE), "reads: interior pages and dirty leaves only");
            Footer f = r.table().footer();
            long bloomPages = (f.bloomLength() + PAGE - 1) / PAGE;
            long newInterior = r.pagesWritten() - r.leavesWritten() - bloomPages - 1;
            assertEquals(r.bytesWritten(), io.bytesWritten(IoPurpose.MERGE));
            assertTrue(r.leavesWritten() >= n && r.leavesWritten() <= 2 * n, "leaves written: " + r.leavesWritten());
            System.out.printf("BL2 table layer: m=%d leaves, n=%d dirty; written %d leaves + %d interior + %d bloom + 1 footer"
                    + " = %d bytes (a rewrite writes %d leaves); read %d bytes; logical %d bytes, physical %d bytes%n",
                    m, n, r.leavesWritten(), newInterior, bloomPages, r.bytesWritten(), m, io.bytesRead(IoPurpose.MERGE),
                    r.logicalBytes(), r.physicalBytes());
            assertTrue(r.logicalBytes() < r.physicalBytes());
            assertEquals(v1.endOffset() + r.bytesWritten(), r.physicalBytes());
        }
    }

    /** With snapshots and a bottommost output, what every snapshot sees is unchanged by dropping versions. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void retentionKeepsWhatEverySnapshotSees(long seed) throws IOException {
        TestSeed.use(seed);
        System.out.println("BlockMergeWriterTest retention seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        int keySpace = 1500;
        long[] seq = {1};
        TreeMap<InternalEntry, InternalEntry> all = model();
        for (int k = 0; k < keySpace; k++) {
            for (int v = rnd.nextInt(3); v >= 0; v--) {
                InternalEntry e = rnd.nextInt(5) == 0 ? InternalEntry.delete(key(k), seq[0]++)
                        : InternalEntry.put(key(k), seq[0]++, value(rnd));
                all.put(e, e);
            }
        }
        Path path = dir.resolve("ret-" + seed + ".sst");
        TableOptions options = TableOptions.defaults();
        FinishedTable table = fixture.write(path, options, new ArrayList<>(all.keySet()));
        // Snapshots are taken at the current sequence number and released later, never in the past.
        List<Long> live = new ArrayList<>(List.of(seq[0] / 3, seq[0] / 2, seq[0] - 5));
        for (int round = 0; round < 4; round++) {
            if (round > 0) {
                live.remove(rnd.nextInt(live.size()));
                live.add(seq[0]);
            }
            long[] snapshots = live.stream().mapToLong(Long::longValue).toArray();
            List<InternalEntry> input = newEntries(rnd, keySpace, seq);
            for (InternalEntry e : input) {
                all.put(e, e);
            }
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                table = BlockMergeWriter.merge(file, base, options, in, new VersionRetention(snapshots, true)::keep).table();
                SSTableReader merged = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                long[] views = LongStream.concat(Arrays.stream(snapshots), LongStream.of(InternalKeys.MAX_SEQNO)).toArray();
                for (long view : views) {
                    for (int k = 0; k < keySpace + 200; k++) {
                        InternalEntry want = visible(all, key(k), view);
                        InternalEntry got = merged.get(key(k), view);
                        String where = "seed " + seed + " round " + round + " key " + k + " at " + view;
                        if (want == null) {
                            assertTrue(got == null || got.isTombstone(), where + ": got " + got);
                        } else {
                            assertEquals(want, got, where);
                        }
                    }
                }
            }
        }
    }

    /** The newest live entry of {@code key} at or below {@code snapshot}, null if none or deleted. */
    static InternalEntry visible(TreeMap<InternalEntry, InternalEntry> all, byte[] key, long snapshot) {
        InternalEntry probe = InternalEntry.delete(key, snapshot);
        InternalEntry e = all.ceilingKey(probe);
        if (e == null || !Arrays.equals(e.key(), key) || e.isTombstone()) {
            return null;
        }
        return e;
    }

    @Test
    void outOfOrderInputIsRejectedAndLeavesTheFileUnchanged() throws IOException {
        Path path = dir.resolve("bad.sst");
        List<InternalEntry> base = TableFixture.randomEntries(new Random(1), 2000, 4, 12, 0, 50);
        FinishedTable v1 = fixture.write(path, TableOptions.defaults(), base);
        byte[] before = Files.readAllBytes(path);
        List<InternalEntry> input = List.of(InternalEntry.put(key(5), 2_000_000, new byte[1]),
                InternalEntry.put(key(4), 2_000_001, new byte[1]));
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader reader = SSTableReader.open(file, v1.footerOffset(), 1, BlockCache.disabled());
            EntryListIterator in = new EntryListIterator(input);
            in.seekToFirst();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BlockMergeWriter.merge(file, reader, TableOptions.defaults(), in,
                            BlockMergeWriter.Retention.keepAll()));
            assertTrue(e.getMessage().contains("out of order"), e.getMessage());
        }
        assertArrayEquals(before, Files.readAllBytes(path));
    }

    @Test
    void formatOneTableCannotBeMergedInPlace() throws IOException {
        Path path = dir.resolve("format1.sst");
        try (var in = LegacyFormatTest.class.getResourceAsStream(LegacyFormatTest.RESOURCE)) {
            Files.copy(in, path);
        }
        byte[] before = Files.readAllBytes(path);
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader reader = SSTableReader.open(file, file.size() - PAGE, 1, BlockCache.disabled());
            EntryListIterator in = new EntryListIterator(List.of(InternalEntry.put(key(1), 5_000_000, new byte[1])));
            in.seekToFirst();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BlockMergeWriter.merge(file, reader, TableOptions.defaults(), in,
                            BlockMergeWriter.Retention.keepAll()));
            assertTrue(e.getMessage().contains("format version 1"), e.getMessage());
        }
        assertArrayEquals(before, Files.readAllBytes(path));
    }

    /**
     * The block cache is keyed by (file, page): after reading the previous version through
     * it, reading the new version fetches from the file only the pages the merge wrote.
     */
    @Test
    void reusedLeavesStayCachedAcrossVersions() throws IOException {
        Random rnd = new Random(17);
        List<InternalEntry> base = new ArrayList<>();
        for (int k = 0; k < 6000; k += 2) {
            base.add(InternalEntry.put(key(k), 1, new byte[150]));
        }
        Path path = dir.resolve("cache.sst");
        FinishedTable v1 = fixture.write(path, TableOptions.defaults(), base);
        List<InternalEntry> input = new ArrayList<>();
        for (int k = 1; k < 6000; k += 2 + 2 * rnd.nextInt(60)) {
            input.add(InternalEntry.put(key(k), 2, new byte[150]));
        }
        BlockMergeResult r;
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader reader = SSTableReader.open(file, v1.footerOffset(), 1, BlockCache.disabled());
            EntryListIterator in = new EntryListIterator(input);
            in.seekToFirst();
            r = BlockMergeWriter.merge(file, reader, TableOptions.defaults(), in, BlockMergeWriter.Retention.keepAll());
        }
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(64 << 20);
            scan(SSTableReader.open(file, v1.footerOffset(), 7, cache));
            IoStats before = fixture.io.counters().snapshot();
            SSTableReader v2 = SSTableReader.open(file, r.table().footerOffset(), 7, cache);
            scan(v2);
            long read = fixture.io.counters().snapshot().minus(before).bytesRead(IoPurpose.READ);
            // Every page the merge wrote (new leaves, interior pages, bloom, footer) is read once;
            // no reused leaf is read again.
            assertEquals(r.bytesWritten(), read, "only pages of the new version are read from the file");
            assertTrue(r.leavesReused() > 0);
        }
    }

    @Test
    void mergesTablesWithLargePagesAndOverflowValues() throws IOException {
        Random rnd = new Random(23);
        TableOptions options = new TableOptions(65536, 10, 0.1);
        TreeMap<InternalEntry, InternalEntry> model = model();
        for (int k = 0; k < 4000; k++) {
            byte[] v = new byte[rnd.nextInt(50) == 0 ? 40_000 + rnd.nextInt(100_000) : rnd.nextInt(400)];
            rnd.nextBytes(v);
            InternalEntry e = InternalEntry.put(key(k), 1 + k, v);
            model.put(e, e);
        }
        Path path = dir.resolve("large.sst");
        FinishedTable table = fixture.write(path, options, new ArrayList<>(model.keySet()));
        long[] seq = {10_000};
        for (int round = 0; round < 3; round++) {
            List<InternalEntry> input = new ArrayList<>();
            for (InternalEntry e : newEntries(rnd, 4000, seq)) {
                input.add(e.isTombstone() || rnd.nextInt(10) != 0 ? e
                        : InternalEntry.put(e.key(), e.seqno(), new byte[70_000 + rnd.nextInt(10)]));
            }
            input.forEach(e -> model.put(e, e));
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                table = BlockMergeWriter.merge(file, base, options, in, BlockMergeWriter.Retention.keepAll()).table();
                SSTableReader merged = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                assertEquals(new ArrayList<>(model.keySet()), scan(merged));
                assertEquals(TableLiveness.referencedPages(merged).cardinality(), table.footer().livePages());
            }
        }
    }

    private BlockMergeResult mergeInto(Path path, FinishedTable base, TableOptions options, List<InternalEntry> input,
                                       BlockMergeWriter.Retention retention) throws IOException {
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader reader = SSTableReader.open(file, base.footerOffset(), 1, BlockCache.disabled());
            EntryListIterator in = new EntryListIterator(input);
            in.seekToFirst();
            return BlockMergeWriter.merge(file, reader, options, in, retention);
        }
    }

    private List<InternalEntry> readVersion(Path path, FinishedTable table) throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            return scan(SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled()));
        }
    }

    @Test
    void edgeCasesEmptyBaseOneLeafBaseEmptyInputAndEverythingDropped() throws IOException {
        TableOptions options = TableOptions.defaults().withBloomReserve(0.1);
        // An empty base: every new entry is a gap entry; the filter is built anew.
        Path empty = dir.resolve("empty.sst");
        FinishedTable e0 = fixture.write(empty, options, List.of());
        List<InternalEntry> input = List.of(InternalEntry.put(key(1), 5, new byte[3]), InternalEntry.delete(key(2), 6));
        BlockMergeResult r = mergeInto(empty, e0, options, input, BlockMergeWriter.Retention.keepAll());
        assertEquals(input, readVersion(empty, r.table()));
        assertTrue(r.bloomRebuilt());
        assertEquals(2, r.table().footer().bloomKeys());

        // A one-leaf base (no interior page): its summary comes from the footer.
        Path one = dir.resolve("one.sst");
        List<InternalEntry> small = List.of(InternalEntry.put(key(10), 1, new byte[5]), InternalEntry.put(key(20), 2, new byte[5]));
        FinishedTable o0 = fixture.write(one, options, small);
        assertEquals(1, o0.footer().height());
        r = mergeInto(one, o0, options, List.of(InternalEntry.put(key(30), 3, new byte[5])), BlockMergeWriter.Retention.keepAll());
        // The key after the last leaf fits there: the leaf takes it in (no one-entry gap leaf).
        assertEquals(0, r.leavesReused());
        assertEquals(1, r.dirtyLeavesMerged());
        assertEquals(1, r.leavesWritten());
        assertEquals(List.of(small.get(0), small.get(1), InternalEntry.put(key(30), 3, new byte[5])), readVersion(one, r.table()));
        assertEquals(3, r.table().footer().entryCount());

        // Empty input: every leaf is referenced in place, the content is unchanged.
        FinishedTable o1 = r.table();
        r = mergeInto(one, o1, options, List.of(), BlockMergeWriter.Retention.keepAll());
        assertEquals(0, r.leavesWritten());
        assertEquals(readVersion(one, o1), readVersion(one, r.table()));

        // A retention rule that drops everything merged: the new version holds only clean leaves, or nothing.
        Path drop = dir.resolve("drop.sst");
        FinishedTable d0 = fixture.write(drop, options, small);
        r = mergeInto(drop, d0, options, List.of(InternalEntry.delete(key(10), 9), InternalEntry.delete(key(20), 9)),
                (k, s, t) -> false);
        assertEquals(List.of(), readVersion(drop, r.table()));
        assertEquals(0, r.table().footer().entryCount());
        assertEquals(1, r.table().footer().livePages());
    }

    /**
     * One new key in a full leaf splits it into two leaves of nearly equal size, not a full
     * leaf and a one-entry leaf; with an overflow value among the cells, no rebalancing.
     */
    @Test
    void aSplitLeafIsBalanced() throws IOException {
        List<InternalEntry> base = new ArrayList<>();
        for (int k = 0; k < 2000; k += 2) {
            base.add(InternalEntry.put(key(k), 1, new byte[100]));
        }
        Path path = dir.resolve("split.sst");
        FinishedTable v1 = fixture.write(path, TableOptions.defaults(), base);
        List<LeafRef> before;
        try (PageFile file = fixture.openForRead(path)) {
            before = LeafIndex.leaves(SSTableReader.open(file, v1.footerOffset(), 1, BlockCache.disabled()));
        }
        LeafRef full = before.get(3);
        int lo = Integer.parseInt(new String(full.minKey()).substring(3));
        BlockMergeResult r = mergeInto(path, v1, TableOptions.defaults(),
                List.of(InternalEntry.put(key(lo + 1), 2, new byte[100])), BlockMergeWriter.Retention.keepAll());
        assertEquals(2, r.leavesWritten());
        try (PageFile file = fixture.openForRead(path)) {
            List<LeafRef> after = LeafIndex.leaves(SSTableReader.open(file, r.table().footerOffset(), 1, BlockCache.disabled()));
            LeafRef a = after.get(3);
            LeafRef b = after.get(4);
            assertEquals(full.summary().entries() + 1, a.summary().entries() + b.summary().entries());
            assertTrue(Math.abs(a.summary().entries() - b.summary().entries()) <= 1,
                    a.summary().entries() + " and " + b.summary().entries() + " entries");
        }
        // The same with an overflow value in the full leaf: cut when full, not rebalanced.
        List<InternalEntry> withBig = new ArrayList<>(base);
        withBig.set(1, InternalEntry.put(key(2), 1, new byte[3000]));
        Path big = dir.resolve("split-big.sst");
        FinishedTable b1 = fixture.write(big, TableOptions.defaults(), withBig);
        try (PageFile file = fixture.openForRead(big)) {
            before = LeafIndex.leaves(SSTableReader.open(file, b1.footerOffset(), 1, BlockCache.disabled()));
        }
        assertEquals(1, before.get(0).summary().overflowPages());
        r = mergeInto(big, b1, TableOptions.defaults(), List.of(InternalEntry.put(key(1), 2, new byte[100])),
                BlockMergeWriter.Retention.keepAll());
        try (PageFile file = fixture.openForRead(big)) {
            SSTableReader merged = SSTableReader.open(file, r.table().footerOffset(), 1, BlockCache.disabled());
            List<LeafRef> after = LeafIndex.leaves(merged);
            assertEquals(before.get(0).summary().entries(), after.get(0).summary().entries(), "first leaf cut when full");
            assertEquals(1, after.get(1).summary().entries(), "the one entry pushed out stays alone");
            assertEquals(TableLiveness.referencedPages(merged).cardinality(), r.table().footer().livePages());
            List<InternalEntry> expected = new ArrayList<>(withBig);
            expected.add(1, InternalEntry.put(key(1), 2, new byte[100]));
            assertEquals(expected, scan(merged));
        }
    }

    /**
     * New keys between two leaves kept in place go into a neighbour that has room for them
     * (the left one first), so that a page-aligned one-entry leaf is written only when both
     * neighbours are full; the plan predicts each of these merges.
     */
    @Test
    void gapKeysGoIntoANeighbourLeafThatHasRoom() throws IOException {
        // 1000-byte values: three entries fill a 4 KiB plain leaf (a prefix-compressed one takes four).
        TableOptions plain = TableOptions.defaults().withLeafEncoding(LeafEncoding.PLAIN, 16);
        List<InternalEntry> model = new ArrayList<>();
        for (int k = 0; k < 60; k += 10) {
            model.add(InternalEntry.put(key(k), 1, new byte[1000]));
        }
        Path path = dir.resolve("gaps.sst");
        FinishedTable t = fixture.write(path, plain, model);
        assertEquals(2, t.footer().leafCount(), "leaves [0, 10, 20] and [30, 40, 50]");
        record Step(int key, int dirty, int leaves, String what) {
        }
        List<Step> steps = List.of(
                new Step(25, 0, 3, "both neighbours full: a gap leaf [25]"),
                new Step(23, 1, 3, "left full, right [25] has room: [23, 25]"),
                new Step(27, 1, 3, "left [23, 25] has room: [23, 25, 27]"),
                new Step(28, 0, 4, "both full again: a gap leaf [28]"),
                new Step(60, 0, 5, "after the last leaf, which is full: a gap leaf [60]"),
                new Step(70, 1, 5, "after the last leaf [60], which has room: [60, 70]"),
                new Step(-1, 0, 5, "nothing"));
        long seq = 2;
        for (Step step : steps) {
            List<InternalEntry> input = step.key() < 0 ? List.of()
                    : List.of(InternalEntry.put(key(step.key()), seq++, new byte[1000]));
            BlockMergePlan plan;
            BlockMergeResult r;
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader reader = SSTableReader.open(file, t.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                plan = BlockMergePlan.of(reader, in);
                in.seekToFirst();
                r = BlockMergeWriter.merge(file, reader, plain, in, BlockMergeWriter.Retention.keepAll());
            }
            model.addAll(input);
            model.sort((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
            assertEquals(step.dirty(), r.dirtyLeavesMerged(), step.what());
            assertEquals(plan.dirtyLeaves(), r.dirtyLeavesMerged(), step.what() + ": the plan predicts it");
            assertEquals(input.isEmpty() ? 0 : 1, r.leavesWritten(), step.what());
            assertEquals(step.leaves(), r.table().footer().leafCount(), step.what());
            assertEquals(model, readVersion(path, r.table()), step.what());
            t = r.table();
        }
        // A leaf holding an overflow value never takes gap keys, even with room left.
        List<InternalEntry> big = List.of(InternalEntry.put(key(0), 1, new byte[3000]), InternalEntry.put(key(10), 1, new byte[10]));
        Path bigPath = dir.resolve("gaps-big.sst");
        FinishedTable b = fixture.write(bigPath, TableOptions.defaults(), big);
        assertEquals(1, b.footer().leafCount());
        BlockMergeResult r = mergeInto(bigPath, b, TableOptions.defaults(),
                List.of(InternalEntry.put(key(20), 2, new byte[10])), BlockMergeWriter.Retention.keepAll());
        assertEquals(0, r.dirtyLeavesMerged());
        assertEquals(2, r.table().footer().leafCount());
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
