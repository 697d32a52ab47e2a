package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;

import static dev.strata.lsm.wal.WalFormat.BLOCK_SIZE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage followed by a valid record is corruption and must be reported with file and
 * offset; damage in the final record is indistinguishable from a torn write and is cut.
 */
class WalCorruptionTest {
    private static final long SEGMENT = 4;

    @TempDir
    Path dir;

    private final StorageIO io = new FileChannelStorageIO();
    private Path segment;
    private byte[] intact;
    private List<WalRecord> records;

    @BeforeEach
    void writeALog() throws IOException {
        Random random = new Random(42);
        try (WalWriter writer = WalWriter.create(io, dir, SEGMENT, WalSyncMode.ASYNC)) {
            for (int i = 0; i < 60; i++) {
                int size = i % 10 == 3 ? 50_000 + random.nextInt(50_000) : random.nextInt(2000);
                writer.append(TestSegments.payload(random, size));
            }
            // The final record spans blocks, so damage in any of its fragments can be tried.
            writer.append(TestSegments.payload(random, 80_000));
        }
        segment = WalSegments.path(dir, SEGMENT);
        intact = Files.readAllBytes(segment);
        records = TestSegments.readAll(io, segment);
        assertEquals(61, records.size());
    }

    @Test
    void aFlippedByteBeforeTheLastRecordIsCorruptionNamingFileAndOffset() throws IOException {
        long seed = TestSegments.seed("aFlippedByteBeforeTheLastRecordIsCorruptionNamingFileAndOffset");
        Random random = new Random(seed);
        for (int iteration = 0; iteration < 60; iteration++) {
            int victim = random.nextInt(records.size() - 1);
            WalRecord r = records.get(victim);
            long at = r.offset() + (long) (random.nextDouble() * (r.end() - r.offset()));
            String where = "flip at " + at + " in record " + victim + ", seed " + seed;
            byte[] damaged = intact.clone();
            damaged[(int) at] ^= (byte) (1 + random.nextInt(255));
            Files.write(segment, damaged);

            List<WalRecord> before = new ArrayList<>();
            CorruptionException e = assertThrows(CorruptionException.class, () -> {
                try (WalReader reader = WalReader.open(io, segment)) {
                    for (WalRecord x = reader.next(); x != null; x = reader.next()) {
                        before.add(x);
                    }
                }
            }, where);
            long physical = physicalRecordStart(r, at);
            assertEquals(segment, e.file(), where);
            assertEquals(physical, e.offset(), where);
            assertTrue(e.getMessage().contains(segment.toString()), where + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("offset " + physical), where + ": " + e.getMessage());
            assertEquals(victim, before.size(), where);
            for (int i = 0; i < victim; i++) {
                assertArrayEquals(records.get(i).payload(), before.get(i).payload(), where);
            }
            // Recovery refuses too, and leaves the file alone.
            assertThrows(CorruptionException.class, () -> WalRecovery.recover(io, segment, x -> { }), where);
            assertEquals(intact.length, Files.size(segment), where);
        }
    }

    @Test
    void aFlippedLengthIsFoundByResynchronizing() throws IOException {
        WalRecord r = records.get(20);
        byte[] damaged = intact.clone();
        damaged[(int) r.offset() + 4] ^= (byte) 0x80; // the high byte of the length
        Files.write(segment, damaged);
        try (WalReader reader = WalReader.open(io, segment)) {
            for (int i = 0; i < 20; i++) {
                assertArrayEquals(records.get(i).payload(), reader.next().payload());
            }
            CorruptionException e = assertThrows(CorruptionException.class, reader::next);
            assertEquals(r.offset(), e.offset());
            assertTrue(e.getMessage().contains("valid record follows at offset " + records.get(21).offset()),
                    e.getMessage());
            // The reader does not pretend to go on after corruption.
            assertSame(e, assertThrows(CorruptionException.class, reader::next));
        }
    }

    @Test
    void aFlippedByteInTheFinalRecordIsATornTail() throws IOException {
        long seed = TestSegments.seed("aFlippedByteInTheFinalRecordIsATornTail");
        Random random = new Random(seed);
        WalRecord last = records.get(records.size() - 1);
        assertTrue(last.end() - last.offset() > 2 * BLOCK_SIZE, "the final record spans several blocks");
        for (int iteration = 0; iteration < 20; iteration++) {
            long at = last.offset() + (long) (random.nextDouble() * (last.end() - last.offset()));
            String where = "flip at " + at + ", seed " + seed;
            byte[] damaged = intact.clone();
            damaged[(int) at] ^= (byte) (1 + random.nextInt(255));
            Files.write(segment, damaged);
            List<WalRecord> recovered = new ArrayList<>();
            WalRecovery.Result result = WalRecovery.recover(io, segment, recovered::add);
            assertEquals(records.size() - 1, recovered.size(), where);
            assertEquals(last.offset(), result.validEnd(), where);
            assertEquals(last.offset(), Files.size(segment), where);
        }
    }

    @Test
    void aZeroedRegionFollowedByRecordsIsCorruption() throws IOException {
        WalRecord r = records.get(30);
        byte[] damaged = intact.clone();
        Arrays.fill(damaged, (int) r.offset(), (int) r.end(), (byte) 0);
        Files.write(segment, damaged);
        CorruptionException e = assertThrows(CorruptionException.class, () -> TestSegments.readAll(io, segment));
        assertEquals(r.offset(), e.offset());
    }

    @Test
    void aFragmentWithoutItsStartFollowedByRecordsIsCorruption() throws IOException {
        Random random = new Random(9);
        Path path = WalSegments.path(dir, 9);
        try (WalWriter writer = WalWriter.create(io, dir, 9, WalSyncMode.ASYNC)) {
            // A fills block 0; B is FIRST in block 1, MIDDLE in 2 and 3, LAST in 4; C follows.
            assertEquals(BLOCK_SIZE, writer.append(new byte[BLOCK_SIZE - WalFormat.SEGMENT_HEADER_RECORD - 7]));
            writer.append(TestSegments.payload(random, 3 * (BLOCK_SIZE - 7) + 100));
            writer.append(TestSegments.payload(random, 10));
        }
        byte[] log = Files.readAllBytes(path);
        // Drop blocks 1 to 3: B's LAST now directly follows A, with no FIRST before it.
        byte[] spliced = new byte[log.length - 3 * BLOCK_SIZE];
        System.arraycopy(log, 0, spliced, 0, BLOCK_SIZE);
        System.arraycopy(log, 4 * BLOCK_SIZE, spliced, BLOCK_SIZE, log.length - 4 * BLOCK_SIZE);
        Files.write(path, spliced);
        CorruptionException e = assertThrows(CorruptionException.class, () -> TestSegments.readAll(io, path));
        assertEquals(BLOCK_SIZE, e.offset());
        assertTrue(e.getMessage().contains("LAST fragment without a FIRST"), e.getMessage());

        // Without C after it, the orphan is just a torn tail.
        Files.write(path, Arrays.copyOf(spliced, BLOCK_SIZE + 7 + 100));
        assertEquals(1, TestSegments.readAll(io, path).size());
    }

    @Test
    void aFragmentedRecordInterruptedByAnotherRecordIsCorruption() throws IOException {
        Random random = new Random(10);
        Path path = WalSegments.path(dir, 10);
        int spanning = (BLOCK_SIZE - WalFormat.SEGMENT_HEADER_RECORD - 7) + 3 * (BLOCK_SIZE - 7);
        try (WalWriter writer = WalWriter.create(io, dir, 10, WalSyncMode.ASYNC)) {
            // X is FIRST in block 0, MIDDLE in 1 and 2, and its LAST fills block 3; Y follows in block 4.
            assertEquals(4L * BLOCK_SIZE, writer.append(TestSegments.payload(random, spanning)));
            writer.append(TestSegments.payload(random, 10));
        }
        byte[] log = Files.readAllBytes(path);
        // Drop blocks 1 to 3: X's FIRST is now followed by Y, a FULL record.
        byte[] spliced = new byte[log.length - 3 * BLOCK_SIZE];
        System.arraycopy(log, 0, spliced, 0, BLOCK_SIZE);
        System.arraycopy(log, 4 * BLOCK_SIZE, spliced, BLOCK_SIZE, log.length - 4 * BLOCK_SIZE);
        Files.write(path, spliced);
        CorruptionException e = assertThrows(CorruptionException.class, () -> TestSegments.readAll(io, path));
        assertEquals(BLOCK_SIZE, e.offset());
        assertTrue(e.getMessage().contains("fragment of the record at offset " + WalFormat.SEGMENT_HEADER_RECORD),
                e.getMessage());
    }

    @Test
    void aBadSegmentHeaderIsCorruption() throws IOException {
        assertHeaderCorruption(withHeaderField(7, 0x12345678, 4), "bad magic");
        assertHeaderCorruption(withHeaderField(11, 2, 2), "unsupported format version 2");
        assertHeaderCorruption(withHeaderField(13, SEGMENT + 1, 8), "header says segment 5");
        byte[] flipped = intact.clone();
        flipped[9] ^= 1;
        assertHeaderCorruption(flipped, "checksum mismatch in segment header");
        // A segment that starts with an ordinary record has no header at all.
        byte[] headless = Arrays.copyOfRange(intact, WalFormat.SEGMENT_HEADER_RECORD, intact.length);
        assertHeaderCorruption(headless, "missing segment header");
    }

    private void assertHeaderCorruption(byte[] content, String expected) throws IOException {
        Files.write(segment, content);
        CorruptionException e = assertThrows(CorruptionException.class, () -> WalReader.open(io, segment));
        assertEquals(segment, e.file());
        assertEquals(0, e.offset());
        assertTrue(e.getMessage().contains(segment.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** The intact log with one header payload field replaced and the header CRC fixed up. */
    private byte[] withHeaderField(int offset, long value, int width) {
        byte[] b = intact.clone();
        ByteBuffer buf = ByteBuffer.wrap(b);
        switch (width) {
            case 2 -> buf.putShort(offset, (short) value);
            case 4 -> buf.putInt(offset, (int) value);
            default -> buf.putLong(offset, value);
        }
        CRC32C crc = new CRC32C();
        crc.update(WalFormat.TYPE_SEGMENT_HEADER);
        crc.update(b, 7, 14);
        buf.putInt(0, (int) crc.getValue());
        return b;
    }

    /**
     * Where the physical record holding byte {@code at} of logical record {@code r}
     * starts: the record's first fragment is in its first block, every later fragment
     * starts at a block boundary.
     */
    private static long physicalRecordStart(WalRecord r, long at) {
        long block = at / BLOCK_SIZE * BLOCK_SIZE;
        return block <= r.offset() ? r.offset() : block;
    }
}
