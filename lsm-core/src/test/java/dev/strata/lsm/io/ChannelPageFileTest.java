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

    /**
     * Writers sharing a file, each interrupted without pause: the shared channel closes when
     * any of them is interrupted in IO on it, so a call of one is cut short by the others'
     * interrupts too, and retrying on its own thread may never end (a WAL write gave up after
     * 1,000 reopenings: InterruptTest failed so on a loaded machine). Every write completes, on
     * a thread no one interrupts once it has been cut short 16 times in a row, and each writer
     * keeps its interrupt status.
     */
    @Test
    void writesCompleteUnderInterruptsFasterThanTheyCan() throws Exception {
        Path path = dir.resolve("storm");
        int writers = 4;
        int rounds = 300;
        byte[][] data = new byte[writers][64 << 10];
        for (int w = 0; w < writers; w++) {
            new Random(9 + w).nextBytes(data[w]);
        }
        try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.WAL)) {
            java.util.Queue<Throwable> failed = new java.util.concurrent.ConcurrentLinkedQueue<>();
            java.util.concurrent.atomic.AtomicInteger keptStatus = new java.util.concurrent.atomic.AtomicInteger();
            java.util.List<Thread> threads = new java.util.ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int me = w;
                threads.add(new Thread(() -> {
                    try {
                        for (int round = 0; round < rounds; round++) {
                            long at = ((long) round * writers + me) * data[me].length;
                            file.write(ByteBuffer.wrap(data[me]), at);
                            file.force(true);
                        }
                        if (Thread.currentThread().isInterrupted()) {
                            keptStatus.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failed.add(t);
                    }
                }, "stormed-writer-" + w));
            }
            threads.forEach(Thread::start);
            while (threads.stream().anyMatch(Thread::isAlive)) {
                for (Thread t : threads) {
                    t.interrupt();
                }
            }
            for (Thread t : threads) {
                t.join();
            }
            if (!failed.isEmpty()) {
                throw new AssertionError(failed.size() + " writer(s) failed: " + failed.peek(), failed.peek());
            }
            assertEquals(writers, keptStatus.get(), "every writer keeps its interrupt status");
            ByteBuffer back = ByteBuffer.allocate(data[0].length);
            for (int round = 0; round < rounds; round++) {
                for (int w = 0; w < writers; w++) {
                    back.clear();
                    file.readFully(back, ((long) round * writers + w) * data[w].length);
                    assertArrayEquals(data[w], back.array(), "round " + round + " writer " + w);
                }
            }
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
