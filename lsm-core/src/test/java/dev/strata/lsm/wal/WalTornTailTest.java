package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;

import static dev.strata.lsm.wal.WalFormat.BLOCK_SIZE;
import static dev.strata.lsm.wal.WalFormat.SEGMENT_HEADER_RECORD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash can leave a segment cut anywhere. Recovery must return exactly the records
 * that lie wholly before the cut and leave the file ending right after the last of them.
 */
class WalTornTailTest {
    private static final long SEGMENT = 11;

    @TempDir
    Path dir;

    private final StorageIO io = new FileChannelStorageIO();

    @Test
    void recoveryAfterACutAtAnyOffsetKeepsExactlyTheCompleteRecords() throws IOException {
        long seed = TestSegments.seed("recoveryAfterACutAtAnyOffsetKeepsExactlyTheCompleteRecords");
        Random random = new Random(seed);
        Path source = dir.resolve("source");
        Files.createDirectory(source);
        List<byte[]> payloads = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        try (WalWriter writer = WalWriter.create(io, source, SEGMENT, WalSyncMode.ASYNC)) {
            for (int i = 0; i < 150; i++) {
                int size = switch (random.nextInt(20)) {
                    case 0 -> 40_000 + random.nextInt(70_000); // spans blocks
                    case 1 -> 0;
                    case 2 -> BLOCK_SIZE - 7 - random.nextInt(8); // around one block's capacity
                    default -> random.nextInt(800);
                };
                byte[] p = TestSegments.payload(random, size);
                payloads.add(p);
                ends.add(writer.append(p));
            }
        }
        byte[] intact = Files.readAllBytes(WalSegments.path(source, SEGMENT));

        // Random cuts, plus the places where off-by-one errors live.
        List<Integer> cuts = new ArrayList<>(List.of(0, 1, 6, 7, SEGMENT_HEADER_RECORD - 1, SEGMENT_HEADER_RECORD,
                SEGMENT_HEADER_RECORD + 1, BLOCK_SIZE - 1, BLOCK_SIZE, BLOCK_SIZE + 1, intact.length - 1, intact.length));
        for (int i = 0; i < 5; i++) {
            int end = (int) (long) ends.get(random.nextInt(ends.size()));
            cuts.addAll(List.of(end - 1, end, end + 1));
        }
        for (int i = 0; i < 180; i++) {
            cuts.add(random.nextInt(intact.length + 1));
        }
        Path segment = WalSegments.path(dir, SEGMENT);
        for (int cut : cuts) {
            String where = "cut at " + cut + " of " + intact.length + ", seed " + seed;
            Files.write(segment, Arrays.copyOf(intact, cut));

            List<WalRecord> recovered = new ArrayList<>();
            WalRecovery.Result result = WalRecovery.recover(io, segment, recovered::add);

            int complete = 0;
            while (complete < ends.size() && ends.get(complete) <= cut) {
                complete++;
            }
            long expectedEnd = cut < SEGMENT_HEADER_RECORD ? 0
                    : complete == 0 ? SEGMENT_HEADER_RECORD : ends.get(complete - 1);
            assertEquals(complete, recovered.size(), where);
            assertEquals(complete, result.records(), where);
            for (int i = 0; i < complete; i++) {
                assertArrayEquals(payloads.get(i), recovered.get(i).payload(), where + ", record " + i);
            }
            assertEquals(expectedEnd, result.validEnd(), where);
            assertEquals(cut - expectedEnd, result.truncatedBytes(), where);
            assertEquals(expectedEnd, Files.size(segment), where);
            assertEquals(cut < SEGMENT_HEADER_RECORD ? OptionalLong.empty() : OptionalLong.of(SEGMENT),
                    result.segmentNumber(), where);

            // Recovering the recovered file finds the same records and nothing to cut.
            List<WalRecord> again = new ArrayList<>();
            WalRecovery.Result second = WalRecovery.recover(io, segment, again::add);
            assertEquals(complete, again.size(), where);
            assertEquals(0, second.truncatedBytes(), where);
            Files.delete(segment);
        }
    }

    @Test
    void aNewSegmentAfterRecoveryContinuesTheLog() throws IOException {
        Random random = new Random(3);
        List<byte[]> written = new ArrayList<>();
        long[] ends = new long[20];
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.SYNC)) {
            for (int i = 0; i < 20; i++) {
                written.add(TestSegments.payload(random, 5000));
                ends[i] = writer.append(written.get(i));
            }
        }
        long lastEnd = ends[19];
        Path first = WalSegments.path(dir, 1);
        // Tear the last record: its final 100 bytes never reached the disk.
        try (var channel = java.nio.channels.FileChannel.open(first, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(lastEnd - 100);
        }
        List<byte[]> replayed = new ArrayList<>();
        WalRecovery.Result result = WalRecovery.recover(io, first, r -> replayed.add(r.payload()));
        assertEquals(19, result.records());
        assertEquals(ends[18], result.validEnd());
        assertEquals(lastEnd - 100 - ends[18], result.truncatedBytes());

        try (WalWriter writer = WalWriter.create(io, dir, 2, WalSyncMode.SYNC)) {
            for (int i = 0; i < 5; i++) {
                byte[] p = TestSegments.payload(random, 300);
                written.add(p);
                writer.append(p);
            }
        }
        List<byte[]> all = new ArrayList<>();
        List<Path> segments = WalSegments.list(io, dir);
        assertEquals(List.of(first, WalSegments.path(dir, 2)), segments);
        for (Path segment : segments) {
            WalRecovery.recover(io, segment, r -> all.add(r.payload()));
        }
        List<byte[]> expected = new ArrayList<>(written.subList(0, 19));
        expected.addAll(written.subList(20, 25));
        assertEquals(expected.size(), all.size());
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), all.get(i), "record " + i);
        }
    }

    @Test
    void aZeroFilledTailIsCutOff() throws IOException {
        long end;
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.ASYNC)) {
            writer.append(new byte[] {1, 2, 3});
            end = writer.append(new byte[100]);
        }
        Path path = WalSegments.path(dir, 1);
        // As a preallocated file, or one whose length reached the disk before its data, would look.
        Files.write(path, new byte[3 * BLOCK_SIZE], java.nio.file.StandardOpenOption.APPEND);
        WalRecovery.Result result = WalRecovery.recover(io, path, r -> { });
        assertEquals(2, result.records());
        assertEquals(end, result.validEnd());
        assertEquals(3L * BLOCK_SIZE, result.truncatedBytes());
        assertEquals(end, Files.size(path));
    }

    @Test
    void garbageAfterTheLastRecordIsATornTail() throws IOException {
        long end;
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.ASYNC)) {
            writer.append(new byte[] {1, 2, 3});
            end = writer.append(new byte[40_000]);
        }
        Path path = WalSegments.path(dir, 1);
        Files.write(path, TestSegments.payload(new Random(5), 50_000), java.nio.file.StandardOpenOption.APPEND);
        WalRecovery.Result result = WalRecovery.recover(io, path, r -> { });
        assertEquals(2, result.records());
        assertEquals(end, Files.size(path));
    }

    @Test
    void aSegmentWhoseHeaderNeverReachedTheDiskIsEmpty() throws IOException {
        Path zeros = WalSegments.path(dir, 1);
        Files.write(zeros, new byte[5000]);
        WalRecovery.Result result = WalRecovery.recover(io, zeros, r -> { });
        assertTrue(result.segmentNumber().isEmpty());
        assertEquals(0, result.records());
        assertEquals(0, Files.size(zeros));

        Path shortHeader = WalSegments.path(dir, 2);
        try (WalWriter writer = WalWriter.create(io, dir, 2, WalSyncMode.NONE)) {
            writer.append(new byte[] {1});
        }
        byte[] whole = Files.readAllBytes(shortHeader);
        Files.write(shortHeader, Arrays.copyOf(whole, 12));
        result = WalRecovery.recover(io, shortHeader, r -> { });
        assertTrue(result.segmentNumber().isEmpty());
        assertEquals(12, result.truncatedBytes());
        assertEquals(0, Files.size(shortHeader));
    }
}
