package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Damaged compressed tables: every read gives a {@link CorruptionException} or the right
 * entries, never a wrong value, a crash or a hang. Random single-byte flips anywhere in the
 * file (700 per codec, 2,100 in all), truncated files, and frames whose payload is truncated
 * or altered <em>with their checksums recomputed</em>, so that the codec itself is fed
 * truncated and corrupt input.
 */
class CompressedCorruptionTest {
    private static final int FLIPS_PER_CODEC = 700;

    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    private record Written(Path path, FinishedTable table, List<InternalEntry> entries, byte[] bytes) {
    }

    private Written write(Compression codec, long seed) throws IOException {
        List<InternalEntry> entries = CompressedTableTest.compressibleEntries(new Random(seed), 400, 0.1, 4096);
        Path path = dir.resolve(codec + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(codec), entries);
        return new Written(path, table, entries, Files.readAllBytes(path));
    }

    /**
     * Reads the whole table (a scan as a merge reads it, a scan, then a get per entry); returns
     * normally only if every entry read is right.
     */
    private void readAll(Path path, long footerOffset, List<InternalEntry> expected) throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            TableIterator scan = SSTableReader.openForScan(file, footerOffset, 1).iterator();
            scan.seekToFirst();
            for (InternalEntry x : expected) {
                assertTrue(scan.valid(), "entries went missing from a merge's scan without an error");
                assertArrayEquals(x.key(), scan.key(), "a merge's scan read a wrong key");
                assertArrayEquals(x.value(), scan.entry().value(), "a merge's scan read a wrong value");
                scan.next();
            }
            assertTrue(!scan.valid(), "a merge's scan read an entry too many");
        }
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = SSTableReader.open(file, footerOffset, 1, BlockCache.disabled());
            TableIterator it = reader.iterator();
            it.seekToFirst();
            int i = 0;
            while (it.valid()) {
                InternalEntry e = it.entry();
                InternalEntry x = expected.get(i++);
                assertArrayEquals(x.key(), e.key(), "a wrong key was read");
                assertEquals(x.seqno(), e.seqno(), "a wrong sequence number was read");
                assertEquals(x.type(), e.type());
                assertArrayEquals(x.value(), e.value(), "a wrong value was read");
                it.next();
            }
            assertEquals(expected.size(), i, "entries went missing without an error");
            for (InternalEntry x : expected) {
                InternalEntry e = reader.get(x.key(), x.seqno());
                assertEquals(x.seqno(), e.seqno());
                assertArrayEquals(x.value(), e.value(), "a wrong value was read by get");
            }
        }
    }

    /** Runs a read that must end in the right entries or a CorruptionException; returns whether it was detected. */
    private boolean detectedOrRight(Path path, long footerOffset, List<InternalEntry> expected, String what) {
        try {
            readAll(path, footerOffset, expected);
            return false;
        } catch (CorruptionException e) {
            assertTrue(e.getMessage().contains(path.toString()), "the error names the file: " + e.getMessage());
            return true;
        } catch (IOException | RuntimeException e) {
            fail(what + ": not a CorruptionException but " + e, e);
            return false;
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD", "SNAPPY"})
    void randomSingleByteFlipsAreDetectedOrHarmless(Compression codec) throws IOException {
        Written w = write(codec, 41 + codec.id());
        readAll(w.path, w.table.footerOffset(), w.entries);
        Random rnd = new Random(codec.id() * 1000L + 7);
        int detected = 0;
        for (int n = 0; n < FLIPS_PER_CODEC; n++) {
            byte[] bytes = w.bytes.clone();
            int at = rnd.nextInt(bytes.length);
            bytes[at] ^= (byte) (1 + rnd.nextInt(255));
            Files.write(w.path, bytes);
            if (detectedOrRight(w.path, w.table.footerOffset(), w.entries, "flip at byte " + at)) {
                detected++;
            }
        }
        // Nearly every byte is covered by a checksum (only the zero padding before the footer is not).
        assertTrue(detected > FLIPS_PER_CODEC * 3 / 4, detected + " of " + FLIPS_PER_CODEC + " flips detected");
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD", "SNAPPY"})
    void truncatedFilesAreCorruption(Compression codec) throws IOException {
        Written w = write(codec, 17);
        Random rnd = new Random(5);
        for (int n = 0; n < 60; n++) {
            int length = n == 0 ? w.bytes.length - 1 : rnd.nextInt(w.bytes.length);
            Files.write(w.path, Arrays.copyOf(w.bytes, length));
            assertThrows(CorruptionException.class, () -> readAll(w.path, w.table.footerOffset(), w.entries),
                    "a file cut to " + length + " bytes");
        }
    }

    /**
     * Frames whose payload is cut short or altered, with the frame's checksum, the page map
     * and the footer rewritten to match: the codec sees the damaged input, and the reader
     * still reports corruption (a failed decompression, or the page's own checksum inside).
     */
    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD", "SNAPPY"})
    void theCodecFedTruncatedOrCorruptPayloadsNeverYieldsAWrongValue(Compression codec) throws IOException {
        Written w = write(codec, 99);
        Footer f = w.table.footer();
        int footerOffset = (int) w.table.footerOffset();
        int mapOffset = (int) f.pageMapOffset();
        Random rnd = new Random(3);
        int frames = 0;
        for (int i = 0; i < f.mappedPages(); i++) {
            int entry = mapOffset + i * PageFormat.MAP_ENTRY_SIZE;
            int off = (int) PageFormat.getLong(w.bytes, entry);
            int len = PageFormat.getInt(w.bytes, entry + 8);
            if (len == 0 || f.firstPage() + i == f.bloomPage() || w.bytes[off + PageFormat.FRAME_OFF_CODEC] == 0
                    || PageFormat.getInt(w.bytes, off + PageFormat.FRAME_OFF_PAGE) != f.firstPage() + i) {
                continue; // an extent or a stored page: no codec input
            }
            frames++;
            int payload = len - PageFormat.FRAME_HEADER_SIZE;
            for (int k = 0; k < 12; k++) {
                byte[] bytes = w.bytes.clone();
                int newPayload = payload;
                String what;
                if (k < 6) {
                    newPayload = k == 0 ? 0 : k == 1 ? 1 : rnd.nextInt(payload);
                    what = "payload of page " + (f.firstPage() + i) + " cut to " + newPayload + " bytes";
                } else {
                    int at = off + PageFormat.FRAME_HEADER_SIZE + rnd.nextInt(payload);
                    bytes[at] ^= (byte) (1 + rnd.nextInt(255));
                    what = "payload byte " + at + " altered";
                }
                PageFormat.putInt(bytes, off + PageFormat.FRAME_OFF_LENGTH, newPayload);
                PageFormat.putInt(bytes, off, PageFormat.pageChecksum(bytes, PageFormat.FRAME_HEADER_SIZE + newPayload));
                PageFormat.putInt(bytes, entry + 8, PageFormat.FRAME_HEADER_SIZE + newPayload);
                CRC32C crc = new CRC32C();
                crc.update(bytes, mapOffset, f.pageMapLength());
                byte[] footer = Arrays.copyOfRange(bytes, footerOffset, footerOffset + f.pageSize());
                PageFormat.putInt(footer, 148, (int) crc.getValue());
                PageFormat.putInt(footer, 0, PageFormat.pageChecksum(footer, footer.length));
                System.arraycopy(footer, 0, bytes, footerOffset, footer.length);
                Files.write(w.path, bytes);
                boolean detected = detectedOrRight(w.path, footerOffset, w.entries, what);
                if (k < 6) {
                    assertTrue(detected, what + " was not detected");
                }
            }
        }
        assertTrue(frames >= 3, frames + " compressed frames");
    }
}
