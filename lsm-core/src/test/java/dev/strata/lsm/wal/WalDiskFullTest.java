package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.SpaceLimitedStorageIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A WAL segment on a disk that fills up: the append that runs out of space fails with a
 * {@link StoreException} naming the cause, and every append acknowledged before it reads
 * back. In {@link WalSyncMode#ASYNC} appends go through a memory mapping, where a full disk
 * does not fail the copy but loses it; the writer must reserve the space first.
 */
class WalDiskFullTest {
    private static final long CAPACITY = 3 << 20;

    @TempDir
    Path dir;

    /** NONE acknowledges appends it has only buffered, so it is not in the test. */
    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"SYNC", "ASYNC"})
    void theAppendThatRunsOutOfSpaceFailsAndEveryAcknowledgedRecordSurvives(WalSyncMode mode) {
        Random random = new Random(TestSegments.seed("diskFull(" + mode + ")"));
        SpaceLimitedStorageIO io = new SpaceLimitedStorageIO(new FileChannelStorageIO(), CAPACITY);
        List<byte[]> acknowledged = new ArrayList<>();
        StoreException failure = null;
        WalWriter writer = WalWriter.create(io, dir, 7, mode);
        for (int i = 0; i < 5_000 && failure == null; i++) {
            byte[] payload = TestSegments.payload(random, 1 + random.nextInt(4_000));
            try {
                writer.append(payload);
                acknowledged.add(payload);
            } catch (StoreException e) {
                failure = e;
            }
        }
        assertNotNull(failure, "filling a " + CAPACITY + "-byte disk must fail an append; "
                + io.lostMappedBytes() + " bytes of acknowledged mapped appends were lost instead");
        assertTrue(failure.getMessage().contains(WalSegments.path(dir, 7).toString()), failure.getMessage());
        assertTrue(String.valueOf(failure.getCause()).contains("No space left on device"), String.valueOf(failure.getCause()));
        assertThrows(StoreException.class, () -> writer.append(new byte[10]), "the writer stays failed");
        assertEquals(0, io.lostMappedBytes(), "no appended byte was lost");
        try {
            writer.close();
        } catch (StoreException expected) {
            // Close reports the earlier failure.
        }
        // Read back as recovery would after a kill, with space freed.
        List<WalRecord> records = TestSegments.readAll(new FileChannelStorageIO(), WalSegments.path(dir, 7));
        assertTrue(records.size() >= acknowledged.size(), records.size() + " records read, "
                + acknowledged.size() + " acknowledged");
        for (int i = 0; i < acknowledged.size(); i++) {
            assertArrayEquals(acknowledged.get(i), records.get(i).payload(), "record " + i);
        }
    }

    @Test
    void aFaultInAMappedCopyFailsTheAppendAsAStoreException() {
        // How the JVM reports SIGBUS in a copy into a mapping, when it reports it in the copy.
        ForwardingStorageIO io = new ForwardingStorageIO(new FileChannelStorageIO()) {
            @Override
            protected PageFile wrap(PageFile file) {
                return new ForwardingPageFile(file) {
                    private int appends;

                    @Override
                    public long append(ByteBuffer src) throws IOException {
                        if (++appends == 3) {
                            throw new InternalError("a fault occurred in an unsafe memory access operation");
                        }
                        return super.append(src);
                    }
                };
            }
        };
        try (WalWriter writer = WalWriter.create(io, dir, 9, WalSyncMode.ASYNC)) {
            writer.append(new byte[100]);
            writer.append(new byte[100]);
            StoreException e = assertThrows(StoreException.class, () -> writer.append(new byte[100]));
            assertTrue(e.getMessage().contains(writer.path().toString()) && e.getMessage().contains("memory mapping"),
                    e.getMessage());
            assertThrows(StoreException.class, () -> writer.append(new byte[100]), "the writer stays failed");
        } catch (StoreException closeReportsTheFailure) {
            assertTrue(closeReportsTheFailure.getMessage().contains("memory mapping"), closeReportsTheFailure.getMessage());
        }
        assertEquals(2, TestSegments.readAll(new FileChannelStorageIO(), WalSegments.path(dir, 9)).size());
    }
}
