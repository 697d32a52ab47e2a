package dev.strata.lsm.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileChannelStorageIO}'s files: preallocation and immunity to interrupts. */
class ChannelPageFileTest {
    private final StorageIO io = new FileChannelStorageIO();

    @TempDir
    Path dir;

    @Test
    void preallocateWritesZerosPastTheEndWithoutChangingSizeOrData() throws IOException {
        Path path = dir.resolve("f");
        byte[] data = new byte[10_000];
        new Random(3).nextBytes(data);
        assertTrue(io.supportsPreallocate());
        try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.WAL)) {
            file.append(ByteBuffer.wrap(data));
            file.preallocate(0, 3 << 20);
            assertEquals(data.length, file.size(), "size is where appends continue");
            assertEquals(3 << 20, Files.size(path), "the zeros are written");
            ByteBuffer back = ByteBuffer.allocate(data.length);
            file.readFully(back, 0);
            assertArrayEquals(data, back.array(), "data in the range is kept");
            ByteBuffer tail = ByteBuffer.allocate(4096);
            file.readFully(tail, (3 << 20) - 4096);
            assertArrayEquals(new byte[4096], tail.array());
            assertEquals(data.length, file.append(ByteBuffer.wrap(data)), "appends continue at size()");
            assertThrows(IllegalArgumentException.class, () -> file.preallocate(-1, 10));
        }
        assertEquals(2L * data.length, Files.size(path), "close cuts the zeros off");
    }

    @Test
    void aMappedAppendPastThePreallocatedSpaceReservesItFirst() throws IOException {
        Path path = dir.resolve("m");
        byte[] data = new byte[100_000];
        new Random(4).nextBytes(data);
        try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.WAL)) {
            assertTrue(file.mapAppends());
            // Without preallocation by the caller, the file writes the window's zeros itself:
            // through the channel, so that SpaceLimitedStorageIO-style ENOSPC would fail the append.
            file.append(ByteBuffer.wrap(data));
            assertEquals(MappedTail.WINDOW_BYTES, Files.size(path));
            file.preallocate(MappedTail.WINDOW_BYTES, MappedTail.WINDOW_BYTES);
            for (int i = 0; i < 60; i++) {
                file.append(ByteBuffer.wrap(data));
            }
            assertEquals(61L * data.length, file.size());
        }
        byte[] all = Files.readAllBytes(path);
        assertEquals(61 * data.length, all.length);
        for (int i = 0; i < 61; i++) {
            assertArrayEquals(data, java.util.Arrays.copyOfRange(all, i * data.length, (i + 1) * data.length), "copy " + i);
        }
    }

    @Test
    void anInterruptedThreadsIoCompletesAndTheFileStaysUsable() throws IOException {
        Path path = dir.resolve("i");
        byte[] data = new byte[1 << 20];
        new Random(5).nextBytes(data);
        try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            file.append(ByteBuffer.wrap(data));
            Thread.currentThread().interrupt();
            try {
                ByteBuffer back = ByteBuffer.allocate(data.length);
                file.readFully(back, 0);
                assertArrayEquals(data, back.array());
                file.write(ByteBuffer.wrap(data, 0, 100), data.length);
                file.force(false);
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status is kept");
            } finally {
                Thread.interrupted();
            }
            ByteBuffer back = ByteBuffer.allocate(100);
            file.readFully(back, data.length);
            assertArrayEquals(java.util.Arrays.copyOf(data, 100), back.array(), "and others read on");
        }
    }

    @Test
    void readsAfterCloseFail() throws IOException {
        Path path = dir.resolve("c");
        PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH);
        file.append(ByteBuffer.wrap(new byte[10]));
        file.close();
        assertThrows(ClosedChannelException.class, () -> file.readFully(ByteBuffer.allocate(10), 0));
    }
}
