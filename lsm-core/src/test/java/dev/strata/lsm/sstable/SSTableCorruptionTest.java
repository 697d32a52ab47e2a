package dev.strata.lsm.sstable;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
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

/** Flipping any single byte of a table must surface as a CorruptionException, never as wrong data. */
class SSTableCorruptionTest {
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

    @Test
    void everyByteOfASmallTableIsProtected() throws IOException {
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
        Path path = dir.resolve("small.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
        assertTrue(table.footer().height() >= 2 && table.footer().overflowPageCount() > 0
                && table.footer().bloomPage() >= 0, table.footer().toString());
        long size = Files.size(path);
        long[] positions = new long[(int) size];
        for (int i = 0; i < size; i++) {
            positions[i] = i;
        }
        flipEachPosition(path, table, entries, positions);
    }

    @Test
    void sampledBytesOfATallTableAreProtected() throws IOException {
        long seed = TestSeed.orRandom();
        System.out.println("sampledBytesOfATallTableAreProtected seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        List<InternalEntry> entries = TableFixture.randomEntries(rnd, 6000, 8, 30, 0, 120);
        Path path = dir.resolve("tall.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
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
}
