package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;

import static dev.strata.lsm.wal.WalFormat.BLOCK_SIZE;
import static dev.strata.lsm.wal.WalFormat.HEADER_SIZE;
import static dev.strata.lsm.wal.WalFormat.SEGMENT_HEADER_RECORD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class WalRoundTripTest {
    @TempDir
    Path dir;

    private final StorageIO io = new FileChannelStorageIO();

    @ParameterizedTest
    @EnumSource(WalSyncMode.class)
    void recordsOfEverySizeReadBackInOrder(WalSyncMode mode) {
        long seed = TestSegments.seed("recordsOfEverySizeReadBackInOrder(" + mode + ")");
        Random random = new Random(seed);
        List<Integer> sizes = new ArrayList<>(List.of(
                BLOCK_SIZE - SEGMENT_HEADER_RECORD - HEADER_SIZE - 1, // leaves a 1-byte block trailer...
                BLOCK_SIZE - HEADER_SIZE, // ...so this one fills the second block exactly
                0, 1, 0, BLOCK_SIZE, BLOCK_SIZE + 1, 100 * 1024, 0, 3 * BLOCK_SIZE - 5));
        for (int i = 0; i < 300; i++) {
            sizes.add(random.nextInt(10) == 0 ? random.nextInt(70_000) : random.nextInt(600));
        }
        List<byte[]> payloads = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        try (WalWriter writer = WalWriter.create(io, dir, 3, mode)) {
            for (int size : sizes) {
                byte[] p = TestSegments.payload(random, size);
                payloads.add(p);
                ends.add(writer.append(p));
            }
            assertEquals(ends.get(ends.size() - 1), writer.size());
        }
        Path path = WalSegments.path(dir, 3);
        try (WalReader reader = WalReader.open(io, path)) {
            assertEquals(OptionalLong.of(3), reader.segmentNumber());
            long previousEnd = SEGMENT_HEADER_RECORD;
            for (int i = 0; i < payloads.size(); i++) {
                WalRecord r = reader.next();
                assertArrayEquals(payloads.get(i), r.payload(), "record " + i + ", seed " + seed);
                assertEquals(ends.get(i), r.end(), "record " + i + ", seed " + seed);
                // A record starts where the previous ended, or after that block's trailer.
                long gap = r.offset() - previousEnd;
                int blockLeft = (int) (BLOCK_SIZE - previousEnd % BLOCK_SIZE);
                assertEquals(blockLeft < HEADER_SIZE ? blockLeft : 0, gap, "record " + i + ", seed " + seed);
                previousEnd = r.end();
            }
            assertNull(reader.next());
            assertNull(reader.next());
            assertEquals(reader.fileSize(), reader.validEnd());
            assertEquals(ends.get(ends.size() - 1), reader.fileSize());
        }
    }

    @Test
    void writesTheByteLayoutTheFormatDocumentDescribes() throws IOException {
        try (WalWriter writer = WalWriter.create(io, dir, 0x0102030405060708L, WalSyncMode.ASYNC)) {
            assertEquals(SEGMENT_HEADER_RECORD + HEADER_SIZE + 3, writer.append(new byte[] {'a', 'b', 'c'}));
        }
        byte[] file = Files.readAllBytes(WalSegments.path(dir, 0x0102030405060708L));
        ByteBuffer b = ByteBuffer.wrap(file);
        assertEquals(SEGMENT_HEADER_RECORD + HEADER_SIZE + 3, file.length);
        // Segment header: crc, length 14, type 5, magic "STWL", version 1, number.
        assertEquals(crc(5, file, 7, 14), b.getInt(0));
        assertEquals(14, b.getShort(4));
        assertEquals(5, b.get(6));
        assertEquals(0x5354574C, b.getInt(7));
        assertEquals("STWL", new String(file, 7, 4, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(1, b.getShort(11));
        assertEquals(0x0102030405060708L, b.getLong(13));
        // The record: crc over type and payload, length 3, type FULL, payload.
        assertEquals(crc(1, file, 28, 3), b.getInt(21));
        assertEquals(3, b.getShort(25));
        assertEquals(1, b.get(27));
        assertEquals('a', file[28]);
        assertEquals('c', file[30]);
    }

    @Test
    void fragmentsAtBlockEndsAsTheFormatSays() throws IOException {
        // First record ends 7 bytes before the block end: the next record starts with a
        // 0-byte FIRST fragment there. Then fill up to 6 bytes before the next block end:
        // those 6 bytes are a zero trailer.
        int first = BLOCK_SIZE - SEGMENT_HEADER_RECORD - 2 * HEADER_SIZE;
        int second = 10;
        int third = BLOCK_SIZE - HEADER_SIZE - second - HEADER_SIZE - 6;
        Random random = new Random(7);
        byte[][] payloads = {TestSegments.payload(random, first), TestSegments.payload(random, second),
            TestSegments.payload(random, third), TestSegments.payload(random, 1)};
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.SYNC)) {
            assertEquals(BLOCK_SIZE - HEADER_SIZE, writer.append(payloads[0]));
            assertEquals(BLOCK_SIZE + HEADER_SIZE + second, writer.append(payloads[1]));
            assertEquals(2L * BLOCK_SIZE - 6, writer.append(payloads[2]));
            assertEquals(2L * BLOCK_SIZE + HEADER_SIZE + 1, writer.append(payloads[3]));
        }
        Path path = WalSegments.path(dir, 1);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(path));
        int firstFragment = BLOCK_SIZE - HEADER_SIZE;
        assertEquals(0, b.getShort(firstFragment + 4), "0-byte FIRST fragment");
        assertEquals(WalFormat.TYPE_FIRST, b.get(firstFragment + 6));
        assertEquals(second, b.getShort(BLOCK_SIZE + 4));
        assertEquals(WalFormat.TYPE_LAST, b.get(BLOCK_SIZE + 6));
        for (int i = 2 * BLOCK_SIZE - 6; i < 2 * BLOCK_SIZE; i++) {
            assertEquals(0, b.get(i), "trailer byte " + i);
        }
        assertEquals(WalFormat.TYPE_FULL, b.get(2 * BLOCK_SIZE + 6));
        List<WalRecord> records = TestSegments.readAll(io, path);
        assertEquals(4, records.size());
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(payloads[i], records.get(i).payload());
        }
        assertEquals(firstFragment, records.get(1).offset());
        assertEquals(2L * BLOCK_SIZE, records.get(3).offset());
    }

    @Test
    void aMultiBlockRecordIsFirstMiddlesAndLast() throws IOException {
        byte[] payload = TestSegments.payload(new Random(1), 100 * 1024);
        try (WalWriter writer = WalWriter.create(io, dir, 2, WalSyncMode.ASYNC)) {
            writer.append(payload);
        }
        Path path = WalSegments.path(dir, 2);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(path));
        assertEquals(WalFormat.TYPE_FIRST, b.get(SEGMENT_HEADER_RECORD + 6));
        assertEquals(WalFormat.TYPE_MIDDLE, b.get(BLOCK_SIZE + 6));
        assertEquals(BLOCK_SIZE - HEADER_SIZE, b.getShort(BLOCK_SIZE + 4) & 0xffff);
        assertEquals(WalFormat.TYPE_MIDDLE, b.get(2 * BLOCK_SIZE + 6));
        assertEquals(WalFormat.TYPE_LAST, b.get(3 * BLOCK_SIZE + 6));
        List<WalRecord> records = TestSegments.readAll(io, path);
        assertEquals(1, records.size());
        assertArrayEquals(payload, records.get(0).payload());
        assertEquals(SEGMENT_HEADER_RECORD, records.get(0).offset());
        assertEquals(b.capacity(), records.get(0).end());
    }

    @Test
    void appendCopiesTheSliceItIsGiven() {
        byte[] buf = {9, 1, 2, 3, 9};
        try (WalWriter writer = WalWriter.create(io, dir, 4, WalSyncMode.NONE)) {
            writer.append(buf, 1, 3);
            buf[2] = 77;
            writer.append(buf, 5, 0);
            assertThrows(IndexOutOfBoundsException.class, () -> writer.append(buf, 3, 3));
        }
        List<WalRecord> records = TestSegments.readAll(io, WalSegments.path(dir, 4));
        assertEquals(2, records.size());
        assertArrayEquals(new byte[] {1, 2, 3}, records.get(0).payload());
        assertArrayEquals(new byte[0], records.get(1).payload());
    }

    @Test
    void aSegmentClosedWithoutRecordsHoldsOnlyItsHeader() throws IOException {
        WalWriter.create(io, dir, 5, WalSyncMode.SYNC).close();
        Path path = WalSegments.path(dir, 5);
        assertEquals(SEGMENT_HEADER_RECORD, Files.size(path));
        try (WalReader reader = WalReader.open(io, path)) {
            assertEquals(OptionalLong.of(5), reader.segmentNumber());
            assertNull(reader.next());
            assertEquals(SEGMENT_HEADER_RECORD, reader.validEnd());
        }
    }

    @Test
    void anEmptyFileIsAnEmptySegment() throws IOException {
        Path path = Files.createFile(WalSegments.path(dir, 6));
        try (WalReader reader = WalReader.open(io, path)) {
            assertTrue(reader.segmentNumber().isEmpty());
            assertNull(reader.next());
            assertEquals(0, reader.validEnd());
        }
    }

    @Test
    void creatingAnExistingSegmentFailsNamingIt() throws IOException {
        Path path = Files.createFile(WalSegments.path(dir, 8));
        var e = assertThrows(dev.strata.lsm.StoreException.class,
                () -> WalWriter.create(io, dir, 8, WalSyncMode.ASYNC));
        assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
    }

    @Test
    void appendAfterCloseIsRejectedAndCloseIsIdempotent() {
        WalWriter writer = WalWriter.create(io, dir, 9, WalSyncMode.ASYNC);
        writer.append(new byte[] {1});
        writer.close();
        writer.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> writer.append(new byte[] {2}));
        assertTrue(e.getMessage().contains(writer.path().toString()), e.getMessage());
        assertThrows(IllegalStateException.class, writer::sync);
        assertEquals(1, TestSegments.readAll(io, writer.path()).size());
    }

    private static int crc(int type, byte[] b, int off, int len) {
        CRC32C crc = new CRC32C();
        crc.update(type);
        crc.update(b, off, len);
        return (int) crc.getValue();
    }
}
