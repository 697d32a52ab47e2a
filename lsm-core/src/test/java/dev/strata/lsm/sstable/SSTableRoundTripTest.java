package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SSTableRoundTripTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    /** Writes, reopens, iterates everything and looks every entry up. */
    private void roundTrip(TableOptions options, List<InternalEntry> entries) throws IOException {
        Path path = dir.resolve("t-" + System.nanoTime() + ".sst");
        FinishedTable table = fixture.write(path, options, entries);
        assertEquals(0, Files.size(path) % options.pageSize(), "file is whole pages");
        assertEquals(Files.size(path), table.endOffset());
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.create(8 << 20));
            Footer f = reader.footer();
            assertEquals(entries.size(), f.entryCount());
            assertEquals(entries.stream().filter(InternalEntry::isTombstone).count(), f.tombstoneCount());
            assertEquals(table.footer(), f);

            TableIterator it = reader.iterator();
            it.seekToFirst();
            List<InternalEntry> read = new ArrayList<>();
            while (it.valid()) {
                read.add(it.entry());
                it.next();
            }
            assertEquals(entries, read);

            // Every entry is found by a lookup at its own sequence number, and the newest
            // version is what an unbounded lookup returns.
            InternalEntry newest = null;
            for (InternalEntry e : entries) {
                assertEquals(e, reader.get(e.key(), e.seqno()));
                if (newest == null || !java.util.Arrays.equals(newest.key(), e.key())) {
                    newest = e;
                    assertEquals(e, reader.get(e.key()));
                }
                if (e.seqno() > 0) {
                    InternalEntry older = reader.get(e.key(), e.seqno() - 1);
                    assertTrue(older == null || older.seqno() < e.seqno());
                }
            }
        }
    }

    @Test
    void emptyTable() throws IOException {
        Path path = dir.resolve("empty.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), List.of());
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            assertEquals(0, reader.footer().height());
            assertEquals(0, reader.footer().entryCount());
            assertNull(reader.get(new byte[] {1}));
            TableIterator it = reader.iterator();
            it.seekToFirst();
            assertFalse(it.valid());
            it.seek(new byte[] {0});
            assertFalse(it.valid());
        }
        assertEquals(TableOptions.DEFAULT_PAGE_SIZE, Files.size(path), "an empty table is one footer page");
    }

    @Test
    void singleEntry() throws IOException {
        roundTrip(TableOptions.defaults(), List.of(InternalEntry.put(new byte[] {42}, 7, new byte[] {1, 2, 3})));
        roundTrip(TableOptions.defaults(), List.of(InternalEntry.delete(new byte[] {42}, 7)));
        roundTrip(TableOptions.defaults(), List.of(InternalEntry.put(new byte[0], 0, new byte[0])));
    }

    @ParameterizedTest(name = "{0}-byte pages")
    @CsvSource({"4096", "65536"})
    void hundredThousandEntries(int pageSize) throws IOException {
        long seed = TestSeed.orRandom();
        System.out.println("hundredThousandEntries seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        List<InternalEntry> entries = TableFixture.randomEntries(new Random(seed), 100_000, 1, 24, 0, 200);
        roundTrip(new TableOptions(pageSize, 10), entries);
    }

    @ParameterizedTest(name = "{0}-byte pages")
    @CsvSource({"4096", "65536"})
    void keysFromOneByteToTheMaximum(int pageSize) throws IOException {
        long seed = TestSeed.orRandom();
        System.out.println("keysFromOneByteToTheMaximum seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        int max = TableOptions.maxKeySize(pageSize);
        List<InternalEntry> entries = TableFixture.randomEntries(new Random(seed), 600, 1, max, 0, 64);
        // Make sure both extremes are present.
        List<InternalEntry> all = new ArrayList<>(entries);
        byte[] maxKey = new byte[max];
        java.util.Arrays.fill(maxKey, (byte) 0xff);
        all.add(InternalEntry.put(maxKey, 1, new byte[] {9}));
        all.add(0, InternalEntry.put(new byte[] {0}, 1, new byte[] {8}));
        all.sort((a, b) -> InternalKeys.compare(a.key(), a.seqno(), b.key(), b.seqno()));
        roundTrip(new TableOptions(pageSize, 10), all);
    }

    @Test
    void largeValuesGoToOverflowPages() throws IOException {
        long seed = TestSeed.orRandom();
        System.out.println("largeValuesGoToOverflowPages seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        List<InternalEntry> entries = TableFixture.randomEntries(rnd, 300, 4, 16, 0, 100);
        List<InternalEntry> mixed = new ArrayList<>();
        int i = 0;
        for (InternalEntry e : entries) {
            if (!e.isTombstone() && i++ % 20 == 0) {
                int size = switch (i % 4) {
                    case 0 -> 4 << 20;
                    case 1 -> 5000;
                    case 2 -> 2048;
                    default -> 70_000 + rnd.nextInt(10_000);
                };
                byte[] v = new byte[size];
                rnd.nextBytes(v);
                mixed.add(InternalEntry.put(e.key(), e.seqno(), v));
            } else {
                mixed.add(e);
            }
        }
        roundTrip(TableOptions.defaults(), mixed);
        roundTrip(new TableOptions(65536, 10), mixed);
    }

    @Test
    void valueOfSixtyFourMebibytes() throws IOException {
        byte[] big = new byte[64 << 20];
        new Random(1).nextBytes(big);
        roundTrip(TableOptions.defaults(), List.of(
                InternalEntry.put(new byte[] {1}, 3, new byte[] {1}),
                InternalEntry.put(new byte[] {2}, 2, big),
                InternalEntry.delete(new byte[] {3}, 1)));
    }

    @Test
    void allTombstones() throws IOException {
        List<InternalEntry> entries = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            entries.add(InternalEntry.delete(TestKeys.padded("key", i, 6).getBytes(), i));
        }
        roundTrip(TableOptions.defaults(), entries);
    }

    @Test
    void secondVersionAppendedToTheSameFileLeavesTheFirstReadable() throws IOException {
        Path path = dir.resolve("versions.sst");
        List<InternalEntry> v1 = TableFixture.randomEntries(new Random(11), 2000, 4, 12, 0, 50);
        List<InternalEntry> v2 = TableFixture.randomEntries(new Random(12), 3000, 4, 12, 0, 50);
        FinishedTable first = fixture.write(path, TableOptions.defaults(), v1);
        FinishedTable second;
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableWriter writer = new SSTableWriter(file, TableOptions.defaults(), first.footerOffset());
            for (InternalEntry e : v2) {
                writer.add(e);
            }
            second = writer.finish();
        }
        assertEquals(first.endOffset() / 4096, second.footer().firstPage());
        assertEquals(first.footerOffset(), second.footer().previousFooterOffset());
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(1 << 20);
            SSTableReader r1 = TableFixture.open(file, first, cache);
            SSTableReader r2 = TableFixture.open(file, second, cache);
            for (InternalEntry e : v1) {
                assertEquals(e, r1.get(e.key(), e.seqno()));
            }
            for (InternalEntry e : v2) {
                assertEquals(e, r2.get(e.key(), e.seqno()));
            }
            assertArrayEquals(v1.get(0).key(), r1.footer().minKey());
            assertArrayEquals(v2.get(v2.size() - 1).key(), r2.footer().maxKey());
        }
    }
}
