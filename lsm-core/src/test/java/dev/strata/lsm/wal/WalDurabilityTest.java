package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What each sync mode has done with a record by the time append returns. */
class WalDurabilityTest {
    @TempDir
    Path dir;

    @Test
    void syncAppendsReturnOnlyAfterAForceCoveredThem() {
        ForceTrackingStorageIO io = new ForceTrackingStorageIO(new FileChannelStorageIO(), 0);
        Random random = new Random(1);
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.SYNC)) {
            for (int i = 0; i < 200; i++) {
                long end = writer.append(TestSegments.payload(random, random.nextInt(i % 50 == 0 ? 90_000 : 500)));
                assertTrue(io.forcedEnd() >= end, "record " + i + " ends at " + end + ", forced only " + io.forcedEnd());
            }
        }
    }

    @Test
    void asyncAppendsAreHandedToTheOsWithoutAForce() throws IOException {
        CountingStorageIO io = new CountingStorageIO(new FileChannelStorageIO());
        Random random = new Random(2);
        Path path = WalSegments.path(dir, 1);
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.ASYNC);
                PageFile other = new FileChannelStorageIO().open(path, OpenMode.READ, IoPurpose.OTHER)) {
            for (int i = 0; i < 200; i++) {
                byte[] p = TestSegments.payload(random, 1 + random.nextInt(300));
                long end = writer.append(p);
                // Small records stay in one block here, so the payload is the last bytes before end.
                ByteBuffer seen = ByteBuffer.allocate(p.length);
                other.readFully(seen, end - p.length);
                assertArrayEquals(p, seen.array(), "record " + i);
                // Appends go through a memory mapping that extends the file ahead of them.
                assertTrue(Files.size(path) >= end);
            }
        }
        assertEquals(0, io.counters().snapshot().forces(IoPurpose.WAL));
        assertEquals(200, io.counters().snapshot().writes(IoPurpose.WAL), "one write per append, no more");
        assertEquals(TestSegments.readAll(io, path).size(), 200);
    }

    @Test
    void noneModeBuffersUntilTheLimitSyncOrClose() throws IOException {
        CountingStorageIO io = new CountingStorageIO(new FileChannelStorageIO());
        Random random = new Random(3);
        Path path = WalSegments.path(dir, 1);
        List<byte[]> payloads = new ArrayList<>();
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.NONE)) {
            for (int i = 0; i < 100; i++) {
                payloads.add(TestSegments.payload(random, 1000));
                writer.append(payloads.get(i));
            }
            assertEquals(0, Files.size(path), "nothing is written before the buffer fills");
            assertEquals(0, io.counters().snapshot().writes(IoPurpose.WAL));

            writer.sync();
            assertEquals(100, TestSegments.readAll(io, path).size(), "all handed to the OS");
            assertEquals(1, io.counters().snapshot().writes(IoPurpose.WAL));
            assertEquals(1, io.counters().snapshot().forces(IoPurpose.WAL));
            writer.sync(); // nothing new: no second force
            assertEquals(1, io.counters().snapshot().forces(IoPurpose.WAL));

            // Past the limit, the appender that crossed it writes the whole buffer out.
            long synced = writer.size();
            while (io.counters().snapshot().writes(IoPurpose.WAL) == 1) {
                assertTrue(writer.size() - synced < 2 * WalWriter.NONE_BUFFER_LIMIT, "the buffer was never written");
                byte[] p = TestSegments.payload(random, 10_000);
                payloads.add(p);
                writer.append(p);
            }
            assertEquals(payloads.size(), TestSegments.readAll(io, path).size(), "the whole buffer was written");
            assertTrue(writer.size() - synced > WalWriter.NONE_BUFFER_LIMIT);
            assertEquals(2, io.counters().snapshot().writes(IoPurpose.WAL));

            payloads.add(new byte[] {42});
            writer.append(payloads.get(payloads.size() - 1));
            assertEquals(2, io.counters().snapshot().writes(IoPurpose.WAL), "the last record stays buffered");
        }
        List<WalRecord> records = TestSegments.readAll(io, path);
        assertEquals(payloads.size(), records.size());
        for (int i = 0; i < payloads.size(); i++) {
            assertArrayEquals(payloads.get(i), records.get(i).payload(), "record " + i);
        }
        assertEquals(1, io.counters().snapshot().forces(IoPurpose.WAL), "close does not force in NONE mode");
    }

    @Test
    void aMappedSegmentLeftOpenReadsToItsLastRecordAndCloseCutsTheZeroTail() throws IOException {
        Random random = new Random(4);
        Path path = WalSegments.path(dir, 1);
        List<byte[]> payloads = new ArrayList<>();
        WalWriter writer = WalWriter.create(new FileChannelStorageIO(), dir, 1, WalSyncMode.ASYNC);
        try {
            for (int i = 0; i < 3000; i++) {
                payloads.add(TestSegments.payload(random, 1 + random.nextInt(3000)));
                writer.append(payloads.get(i));
            }
            // As a killed process leaves it: records, then zeros up to the end of the mapping.
            assertTrue(Files.size(path) > writer.size(), "the mapping runs ahead of the records");
            List<WalRecord> records = TestSegments.readAll(new FileChannelStorageIO(), path);
            assertEquals(payloads.size(), records.size());
            for (int i = 0; i < payloads.size(); i++) {
                assertArrayEquals(payloads.get(i), records.get(i).payload(), "record " + i);
            }
        } finally {
            writer.close();
        }
        assertEquals(writer.size(), Files.size(path), "close cuts the file to its records");
        assertEquals(payloads.size(), TestSegments.readAll(new FileChannelStorageIO(), path).size());
    }

    @Test
    void asyncSyncForcesEverythingAppendedSoFar() {
        ForceTrackingStorageIO io = new ForceTrackingStorageIO(new FileChannelStorageIO(), 0);
        try (WalWriter writer = WalWriter.create(io, dir, 1, WalSyncMode.ASYNC)) {
            writer.append(new byte[10]);
            long end = writer.append(new byte[20]);
            assertEquals(0, io.forcedEnd());
            writer.sync();
            assertEquals(end, io.forcedEnd());
        }
    }
}
