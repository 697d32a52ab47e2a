package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A format-4 footer appended to a table ({@link SSTableWriter#appendGlobalSeqno}) gives every
 * entry one sequence number whatever its cell says: gets and seeks below it see nothing,
 * at or above it see each key's one entry with that number; the older footer still opens as
 * it was; a footer whose global number disagrees with its bounds is corruption.
 */
class GlobalSeqnoFooterTest {
    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 5).getBytes();
    }

    private static List<InternalEntry> entries(long cellSeq) {
        List<InternalEntry> out = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            out.add(i % 7 == 0 ? InternalEntry.delete(key(i), cellSeq) : InternalEntry.put(key(i), cellSeq,
                    ("v" + i + "x".repeat(i % 90)).getBytes()));
        }
        return out;
    }

    @Test
    void everyEntryCarriesTheGlobalNumberWhateverItsCellSays() throws IOException {
        // Cells at 0 (TableWriter's) and at a number above the global one: the footer decides.
        for (long cellSeq : new long[] {0, 900}) {
            TableFixture fx = new TableFixture();
            Path path = tmp.resolve("t" + cellSeq + ".sst");
            FinishedTable original = fx.write(path, new TableOptions(4096, 10), entries(cellSeq));
            long sizeBefore = Files.size(path);
            FinishedTable ingested;
            try (PageFile f = fx.io.open(path, OpenMode.READ_WRITE, IoPurpose.FLUSH)) {
                assertTrue(original.footer().acceptsGlobalSeqno());
                ingested = SSTableWriter.appendGlobalSeqno(f, original.footer(), 500);
            }
            assertEquals(sizeBefore, ingested.footerOffset(), "the footer is appended at the end");
            assertEquals(sizeBefore + 4096, Files.size(path));
            try (PageFile f = fx.openForRead(path)) {
                SSTableReader r = TableFixture.open(f, ingested, BlockCache.disabled());
                Footer footer = r.footer();
                assertEquals(4, footer.formatVersion());
                assertEquals(500, footer.globalSeqno());
                assertEquals(500, footer.minSeqno());
                assertEquals(500, footer.maxSeqno());
                assertFalse(footer.mergeableInPlace(), "reused leaves would lose the global number");
                for (int i = 0; i < 3000; i += 37) {
                    assertNull(r.get(key(i), 499), "below the global number nothing is visible");
                    InternalEntry e = r.get(key(i), 500);
                    assertEquals(500, e.seqno(), "key " + i);
                    assertEquals(i % 7 == 0 ? EntryType.DELETE : EntryType.PUT, e.type());
                    assertEquals(500, r.get(key(i)).seqno());
                }
                try (TableIterator it = r.iterator()) {
                    int n = 0;
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        assertEquals(500, it.seqno());
                        assertArrayEquals(key(n), it.key());
                        n++;
                    }
                    assertEquals(3000, n);
                    it.seek(key(10), 499);
                    assertArrayEquals(key(11), it.key(), "a seek below the global number passes the key");
                    it.seek(key(10), 500);
                    assertArrayEquals(key(10), it.key());
                    // In internal-key order (k, 500) lies after (k, 501) and before (k, 499).
                    it.seekForPrev(key(10), 501);
                    assertArrayEquals(key(9), it.key(), "(k10, 500) is after (k10, 501)");
                    it.seekForPrev(key(10), 499);
                    assertArrayEquals(key(10), it.key());
                }
                // The table's first version is still there, with its cells' own numbers.
                SSTableReader old = TableFixture.open(f, original, BlockCache.disabled());
                assertEquals(cellSeq, old.get(key(1)).seqno());
                assertEquals(Footer.NO_GLOBAL_SEQNO, old.footer().globalSeqno());
            }
        }
    }

    @Test
    void aGlobalNumberThatDisagreesWithTheBoundsIsCorruption() throws IOException {
        TableFixture fx = new TableFixture();
        Path path = tmp.resolve("t.sst");
        FinishedTable original = fx.write(path, new TableOptions(4096, 10), entries(0));
        FinishedTable ingested;
        try (PageFile f = fx.io.open(path, OpenMode.READ_WRITE, IoPurpose.FLUSH)) {
            ingested = SSTableWriter.appendGlobalSeqno(f, original.footer(), 77);
        }
        // Bytes 8-15 say 78, the bounds 77; the page checksum is made right again.
        byte[] page = new byte[4096];
        try (PageFile f = fx.io.open(path, OpenMode.READ_WRITE, IoPurpose.FLUSH)) {
            f.readFully(ByteBuffer.wrap(page), ingested.footerOffset());
            PageFormat.putLong(page, 8, 78);
            PageFormat.putInt(page, PageFormat.OFF_CRC, PageFormat.pageChecksum(page, page.length));
            f.write(ByteBuffer.wrap(page), ingested.footerOffset());
        }
        try (PageFile f = fx.openForRead(path)) {
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> TableFixture.open(f, ingested, BlockCache.disabled()));
            assertTrue(e.getMessage().contains("global sequence number 78"), e.getMessage());
        }
    }

    @Test
    void onlyAWholeUnpackedTableTakesAGlobalNumber() throws IOException {
        TableFixture fx = new TableFixture();
        Path path = tmp.resolve("packed.sst");
        TableOptions lz4 = new TableOptions(4096, 10, 0.0, Compression.LZ4, Compression.DEFAULT_LEVEL);
        FinishedTable packed = fx.write(path, lz4, entries(0));
        assertFalse(packed.footer().acceptsGlobalSeqno(), "a packed table is rewritten by ingest instead");
        try (PageFile f = fx.io.open(path, OpenMode.READ_WRITE, IoPurpose.FLUSH)) {
            assertThrows(IllegalArgumentException.class, () -> SSTableWriter.appendGlobalSeqno(f, packed.footer(), 5));
        }
    }
}
