package dev.strata.lsm.io.direct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link StorageIO} / {@link PageFile} contract, run against nio and against native
 * (O_DIRECT on and off) for every purpose: the same calls give the same results.
 */
class StorageIOContractTest {
    @TempDir
    Path tmp;

    static Stream<Arguments> implementations() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (IoPurpose purpose : List.of(IoPurpose.FLUSH, IoPurpose.MERGE, IoPurpose.READ, IoPurpose.WAL)) {
            b.add(Arguments.of("nio", purpose));
            b.add(Arguments.of("native", purpose));
            b.add(Arguments.of("native-buffered", purpose));
        }
        return b.build();
    }

    private static StorageIO create(String name) {
        return switch (name) {
            case "nio" -> new FileChannelStorageIO();
            case "native" -> new NativeStorageIO();
            default -> new NativeStorageIO(new NativeOptions(false, true, true, true));
        };
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("implementations")
    void writeAppendReadTruncateAndReopen(String name, IoPurpose purpose) throws Exception {
        StorageIO io = create(name);
        io.createDirectories(tmp.resolve("d"));
        Path file = tmp.resolve("d").resolve("f.sst");
        Random rnd = new Random(11);
        byte[] pages = new byte[4 * 4096];
        rnd.nextBytes(pages);
        byte[] tail = new byte[777];
        rnd.nextBytes(tail);
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, purpose)) {
            assertEquals(file, f.path());
            assertEquals(purpose, f.purpose());
            assertEquals(0, f.size());
            ByteBuffer page = io.allocate(pages.length);
            page.put(pages).flip();
            assertEquals(0, f.append(page));
            assertFalse(page.hasRemaining());
            assertEquals(pages.length, f.append(ByteBuffer.wrap(tail)));
            assertEquals(pages.length + tail.length, f.size());
            // Overwrite one page in place.
            ByteBuffer again = io.allocate(4096);
            again.put(pages, 0, 4096).flip();
            f.write(again, 4096);
            assertEquals(pages.length + tail.length, f.size());
            if (io.supportsPreallocate()) {
                f.preallocate(f.size(), 1 << 20);
                assertEquals(pages.length + tail.length, f.size(), "preallocate keeps the size");
            }
            f.force(false);
            f.force(true);
        }
        assertEquals(pages.length + tail.length, Files.size(file), "closing drops any preallocated tail");
        byte[] expected = new byte[pages.length + tail.length];
        System.arraycopy(pages, 0, expected, 0, pages.length);
        System.arraycopy(pages, 0, expected, 4096, 4096);
        System.arraycopy(tail, 0, expected, pages.length, tail.length);
        try (PageFile f = io.open(file, OpenMode.READ, purpose)) {
            assertEquals(expected.length, f.size());
            ByteBuffer all = ByteBuffer.allocate(expected.length);
            f.readFully(all, 0);
            assertArrayEquals(expected, all.array());
            ByteBuffer aligned = io.allocate(8192);
            f.readFully(aligned, 8192);
            byte[] part = new byte[8192];
            aligned.flip().get(part);
            byte[] want = new byte[8192];
            System.arraycopy(expected, 8192, want, 0, 8192);
            assertArrayEquals(want, part);
            assertThrows(EOFException.class, () -> f.readFully(ByteBuffer.allocate(10), expected.length - 5));
        }
        try (PageFile f = io.open(file, OpenMode.READ_WRITE, purpose)) {
            f.truncate(4096);
            assertEquals(4096, f.size());
            assertEquals(4096, f.append(ByteBuffer.wrap(new byte[] {42})));
        }
        assertEquals(4097, Files.size(file));
        assertEquals(List.of(file), io.list(tmp.resolve("d")).stream().filter(p -> p.equals(file)).toList());
        io.rename(file, tmp.resolve("d").resolve("g.sst"));
        assertFalse(io.exists(file));
        io.syncDirectory(tmp.resolve("d"));
        io.delete(tmp.resolve("d").resolve("g.sst"));
        assertTrue(io.list(tmp.resolve("d")).isEmpty(), "the capability probe leaves nothing behind");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("implementations")
    void anInterruptedThreadsIoCompletesAndKeepsItsStatus(String name, IoPurpose purpose) throws Exception {
        StorageIO io = create(name);
        Path file = tmp.resolve("i.sst");
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, purpose)) {
            Thread.currentThread().interrupt();
            try {
                ByteBuffer b = io.allocate(4096);
                b.put(0, (byte) 9);
                f.write(b, 0);
                ByteBuffer r = io.allocate(4096);
                f.readFully(r, 0);
                assertEquals(9, r.get(0));
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
            ByteBuffer r = ByteBuffer.allocate(1);
            f.readFully(r, 0);
            assertEquals(9, r.get(0), "the file still works for everyone");
        }
    }
}
