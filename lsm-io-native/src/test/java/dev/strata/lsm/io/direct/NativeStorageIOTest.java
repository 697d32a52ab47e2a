package dev.strata.lsm.io.direct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIOs;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native provider on the machine's real file systems: O_DIRECT in effect (seen by the
 * kernel), alignment, the fallback where O_DIRECT is refused, fallocate and hole punching
 * (seen in the file's allocated blocks), and the capability query. A test that needs a call
 * the OS lacks is skipped with the reason.
 */
class NativeStorageIOTest {
    @TempDir
    Path tmp;

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static ByteBuffer aligned(byte[] data) {
        return alignedBuffer(data.length).put(data).flip();
    }

    /** An aligned direct buffer of exactly {@code n} bytes (AlignedBuffers rounds down to whole pages). */
    static ByteBuffer alignedBuffer(int n) {
        return AlignedBuffers.allocate((n + 4095) / 4096 * 4096, 4096).limit(n);
    }

    /** The open flags of {@code fd} of this process, from /proc/self/fdinfo (octal). */
    private static int fdFlags(int fd) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith("flags:")) {
                return Integer.parseInt(line.substring(6).trim(), 8);
            }
        }
        throw new IOException("no flags in /proc/self/fdinfo/" + fd);
    }

    /** Forces {@code f}, reads it back whole and compares it with {@code data}. */
    private static void assertHoldsAfterForce(PageFile f, byte[] data) throws IOException {
        f.force(false);
        ByteBuffer all = alignedBuffer(data.length);
        f.readFully(all, 0);
        byte[] back = new byte[data.length];
        all.flip().get(back);
        assertArrayEquals(data, back);
    }

    /** A provider on {@link #tmp}, or the test skipped where its file system refuses O_DIRECT. */
    private NativeStorageIO directIo() throws IOException {
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        Assumptions.assumeTrue(io.capabilities(tmp).direct(), "the file system of " + tmp + " refuses O_DIRECT");
        return io;
    }

    /** Allocated 512-byte blocks of {@code file} (st_blocks), from stat(1). */
    static long blocks(Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, p.waitFor(), "stat: " + out);
        return Long.parseLong(out);
    }

    @Test
    void oDirectHasEachArchitecturesValue() {
        assertEquals(0x4000, LibC.oDirect("x86-64"));
        assertEquals(040000, LibC.oDirect("x86-64"));
        assertEquals(0x10000, LibC.oDirect("aarch64"));
        assertEquals(0200000, LibC.oDirect("aarch64"));
        assertEquals(0x20000, LibC.oDirect("ppc64le"));
        assertEquals(040000, LibC.oDirect("riscv64"));
    }

    @Test
    void tableOutputsAndMergeReadsAreOpenedWithODirectAndPointReadsAreNot() throws Exception {
        NativeStorageIO io = directIo();
        Path file = tmp.resolve("000001.sst");
        byte[] data = random(3 * 4096, 1);
        try (PageFile out = io.open(file, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            NativePageFile f = assertInstanceOf(NativePageFile.class, out);
            assertTrue(f.directDescriptor() >= 0);
            int flags = fdFlags(f.directDescriptor());
            assertEquals(LibC.O_DIRECT, flags & LibC.O_DIRECT, "fdinfo flags " + Integer.toOctalString(flags));
            assertEquals(0, fdFlags(f.bufferedDescriptor()) & LibC.O_DIRECT);
            out.write(aligned(data), 0);
            out.force(false);
        }
        try (PageFile in = io.open(file, OpenMode.READ, IoPurpose.MERGE)) {
            NativePageFile f = (NativePageFile) in;
            assertEquals(LibC.O_DIRECT, fdFlags(f.directDescriptor()) & LibC.O_DIRECT);
            // The kernel enforces O_DIRECT's alignment on this descriptor: proof that it is in effect.
            ByteBuffer b = AlignedBuffers.allocate(8192, 4096);
            long n = LibC.pread(f.directDescriptor(), com.sun.jna.Pointer.nativeValue(
                    com.sun.jna.Native.getDirectBufferPointer(b)) + 1, 4096, 0);
            assertEquals(-1, n);
            assertEquals(LibC.EINVAL, NativeStorageIO.lastError());
            ByteBuffer all = AlignedBuffers.allocate(data.length, 4096);
            in.readFully(all, 0);
            byte[] back = new byte[data.length];
            all.flip().get(back);
            assertArrayEquals(data, back);
        }
        try (PageFile in = io.open(file, OpenMode.READ, IoPurpose.READ)) {
            assertEquals(-1, ((NativePageFile) in).directDescriptor());
        }
        try (PageFile wal = io.open(tmp.resolve("000002.log"), OpenMode.CREATE_NEW, IoPurpose.WAL)) {
            assertFalse(wal instanceof NativePageFile, "the WAL stays on nio's buffered files");
        }
    }

    @Test
    void alignmentIsThePowerOfTwoCoveringStatxAndTheBlockSize() throws Exception {
        NativeStorageIO io = directIo();
        try (PageFile out = io.open(tmp.resolve("a.sst"), OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            NativePageFile f = (NativePageFile) out;
            int a = f.alignment();
            assertEquals(1, Integer.bitCount(a), "power of two: " + a);
            assertTrue(a >= 4096, "at least 4096: " + a);
            assertTrue(a >= Files.getFileStore(tmp).getBlockSize(), "at least the block size: " + a);
            Statx.Result st = Statx.of(f.directDescriptor());
            if (st != null && st.hasDioAlign()) {
                assertTrue(a >= st.dioOffsetAlign() && a >= st.dioMemAlign(), "covers statx " + st);
                System.out.println("statx DIO alignment: memory " + st.dioMemAlign() + ", offset "
                        + st.dioOffsetAlign() + "; block size " + Files.getFileStore(tmp).getBlockSize()
                        + " -> alignment " + a);
            } else {
                System.out.println("statx has no DIO alignment here; alignment " + a);
            }
            assertEquals(a, io.capabilities(tmp).alignment());
        }
    }

    @Test
    void unalignedAndHeapBufferIoOnADirectFileIsStillCorrect() throws Exception {
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        Path file = tmp.resolve("mixed.sst");
        byte[] model = new byte[40_000];
        Random rnd = new Random(7);
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            byte[] pages = random(8 * 4096, 2);
            f.write(aligned(pages), 0);
            System.arraycopy(pages, 0, model, 0, pages.length);
            for (int i = 0; i < 50; i++) {
                int at = rnd.nextInt(36_000);
                byte[] chunk = random(1 + rnd.nextInt(3000), i);
                ByteBuffer src = rnd.nextBoolean() ? ByteBuffer.wrap(chunk) : ByteBuffer.allocateDirect(chunk.length);
                if (src.isDirect()) {
                    src.put(chunk).flip();
                }
                f.write(src, at);
                assertFalse(src.hasRemaining());
                System.arraycopy(chunk, 0, model, at, chunk.length);
            }
            long size = f.size();
            for (int i = 0; i < 100; i++) {
                int at = rnd.nextInt((int) size - 1);
                int len = 1 + rnd.nextInt((int) Math.min(9000, size - at - 1));
                ByteBuffer dst = switch (i % 3) {
                    case 0 -> ByteBuffer.allocate(len);
                    case 1 -> ByteBuffer.allocateDirect(len);
                    default -> alignedBuffer(len);
                };
                f.readFully(dst, at);
                byte[] got = new byte[len];
                dst.flip().get(got);
                byte[] want = new byte[len];
                System.arraycopy(model, at, want, 0, len);
                assertArrayEquals(want, got, "read of " + len + " at " + at);
            }
            // An aligned read running past the end of the file is an EOFException.
            ByteBuffer past = AlignedBuffers.allocate(8192, 4096);
            long lastPage = size / 4096 * 4096;
            assertThrows(EOFException.class, () -> f.readFully(past, lastPage));
            long appended = f.append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertEquals(size, appended);
            assertEquals(size + 3, f.size());
        }
    }

    @Test
    void tmpfsFallsBackToBufferedIoLoggedOnce() throws Exception {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm");
        Path dir = Files.createTempDirectory(shm, "strata-native-");
        try {
            List<String> warnings = new ArrayList<>();
            NativeStorageIO io = new NativeStorageIO(NativeOptions.DEFAULTS, warnings::add, p -> false);
            io.createDirectories(dir);
            if (io.capabilities(dir).direct()) {
                System.out.println("skipped: tmpfs accepts O_DIRECT on this kernel ("
                        + System.getProperty("os.version") + ")");
            }
            Assumptions.assumeFalse(io.capabilities(dir).direct(), "tmpfs accepts O_DIRECT on this kernel ("
                    + System.getProperty("os.version") + "; Linux 6.6 and later): nothing falls back here; "
                    + "fallbackWhereODirectIsRefused covers the fallback");
            checkFallback(io, dir, warnings);
        } finally {
            try (var s = Files.list(dir)) {
                for (Path p : s.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    @Test
    void fallbackWhereODirectIsRefused() throws Exception {
        List<String> warnings = new ArrayList<>();
        // The kernel here may accept O_DIRECT everywhere; refuse it as a file system without direct IO does.
        NativeStorageIO io = new NativeStorageIO(NativeOptions.DEFAULTS, warnings::add, p -> true);
        io.createDirectories(tmp);
        assertFalse(io.capabilities(tmp).direct());
        checkFallback(io, tmp, warnings);
    }

    private static void checkFallback(NativeStorageIO io, Path dir, List<String> warnings) throws Exception {
        for (int i = 0; i < 3; i++) {
            Path file = dir.resolve("t" + i + ".sst");
            byte[] data = random(5 * 4096 + 100, i);
            try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
                assertEquals(-1, ((NativePageFile) f).directDescriptor());
                f.write(aligned(data), 0);
                f.force(false);
            }
            try (PageFile f = io.open(file, OpenMode.READ, IoPurpose.MERGE)) {
                ByteBuffer b = alignedBuffer(data.length);
                f.readFully(b, 0);
                byte[] back = new byte[data.length];
                b.flip().get(back);
                assertArrayEquals(data, back);
            }
        }
        assertEquals(6, io.directFallbacks(), "three writes and three merge reads fell back");
        assertEquals(1, warnings.size(), "logged once: " + warnings);
        assertTrue(warnings.get(0).contains("O_DIRECT refused") && warnings.get(0).contains("buffered"),
                warnings.get(0));
    }

    @Test
    void punchHoleFreesBlocksAndReadsZeros() throws Exception {
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        Assumptions.assumeTrue(io.capabilities(tmp).punchHole(), "the file system of " + tmp + " cannot punch holes");
        assertTrue(io.supportsPunchHole());
        Path file = tmp.resolve("holes.sst");
        byte[] data = random(1 << 20, 3);
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            f.write(aligned(data), 0);
            f.force(false);
        }
        long before = blocks(file);
        assertTrue(before >= (1 << 20) / 512, "1 MiB written: " + before + " blocks");
        try (PageFile f = io.open(file, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            f.punchHole(64 << 10, 512 << 10);
            f.force(false);
            assertEquals(1 << 20, f.size());
            ByteBuffer b = AlignedBuffers.allocate(1 << 20, 4096);
            f.readFully(b, 0);
            byte[] back = new byte[1 << 20];
            b.flip().get(back);
            for (int i = 0; i < back.length; i++) {
                boolean hole = i >= (64 << 10) && i < (576 << 10);
                if (back[i] != (hole ? 0 : data[i])) {
                    throw new AssertionError("byte " + i + " is " + back[i] + (hole ? " in the hole" : ""));
                }
            }
        }
        long after = blocks(file);
        assertEquals(1 << 20, Files.size(file));
        assertTrue(before - after >= (512 << 10) / 512, "punching 512 KiB freed " + (before - after) + " blocks");
        try (PageFile f = io.open(file, OpenMode.READ, IoPurpose.READ)) {
            assertEquals(after * 512, f.allocatedBytes(), "allocated bytes are the blocks statx reports");
        }
    }

    @Test
    void preallocateReservesBlocksWithoutChangingTheSize() throws Exception {
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        Assumptions.assumeTrue(io.capabilities(tmp).fallocate(), "the file system of " + tmp + " has no fallocate");
        assertTrue(io.supportsPreallocate());
        Path file = tmp.resolve("pre.sst");
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            f.append(ByteBuffer.wrap(new byte[100]));
            f.preallocate(0, 4 << 20);
            assertEquals(100, f.size());
            assertEquals(100, Files.size(file), "KEEP_SIZE");
            assertTrue(blocks(file) >= (4 << 20) / 512, "4 MiB reserved: " + blocks(file));
        }
        // Blocks reserved past the end are freed when the file is closed.
        assertEquals(100, Files.size(file));
        assertTrue(blocks(file) <= 64, "after close: " + blocks(file) + " blocks");
    }

    @Test
    void tableOutputsArePreallocatedAheadAndTrimmedOnClose() throws Exception {
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        Assumptions.assumeTrue(io.capabilities(tmp).fallocate(), "the file system of " + tmp + " has no fallocate");
        Path file = tmp.resolve("out.sst");
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            f.write(aligned(random(8192, 4)), 0);
            assertEquals(8192, f.size());
            f.force(false); // the O_DIRECT write may still be in flight (write-behind) until then
            assertEquals(8192, Files.size(file));
            assertTrue(blocks(file) >= (1 << 20) / 512, "reserved ahead while writing: " + blocks(file));
        }
        assertEquals(8192, Files.size(file));
        assertTrue(blocks(file) <= 8192 / 512 + 8, "trimmed on close: " + blocks(file));
    }

    @Test
    void writeBehindKeepsOrderAndReportsAFailureAtTheNextCall() throws Exception {
        NativeStorageIO io = directIo();
        Path file = tmp.resolve("behind.sst");
        byte[] data = random(16 << 20, 9);
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            ByteBuffer chunk = alignedBuffer(1 << 20);
            for (int off = 0; off < data.length; off += 1 << 20) {
                chunk.clear();
                chunk.put(data, off, 1 << 20).flip();
                f.write(chunk, off);
                // The caller reuses its buffer at once, as SSTableWriter does.
                chunk.clear();
                chunk.put(new byte[1 << 20]);
            }
            assertEquals(data.length, f.size());
            assertHoldsAfterForce(f, data);
        }
        // A write that fails in the background (here: a file opened read-only for writing
        // is refused at once, so provoke it with an offset past the largest file size).
        try (PageFile f = io.open(tmp.resolve("fail.sst"), OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            f.write(alignedBuffer(4096), Long.MAX_VALUE / 4096 * 4096 - 4096 * 16);
            IOException e = assertThrows(IOException.class, () -> f.force(false));
            assertTrue(e.getMessage().contains("pwrite (O_DIRECT)") && e.getMessage().contains("fail.sst"),
                    e.getMessage());
        }
    }

    @Test
    void writeBehindTakesTheCallersBufferAndReturnsAnother() throws Exception {
        NativeStorageIO io = directIo();
        Path file = tmp.resolve("handed.sst");
        byte[] data = random(8 << 20, 11);
        java.util.Set<ByteBuffer> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        try (PageFile f = io.open(file, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            ByteBuffer chunk = alignedBuffer(1 << 20);
            for (int off = 0; off < data.length; off += 1 << 20) {
                chunk.put(data, off, 1 << 20).flip();
                ByteBuffer handed = chunk;
                chunk = f.writeBehind(chunk, off);
                assertNotSame(handed, chunk, "a table output on the direct descriptor is written behind, uncopied");
                assertEquals(0, chunk.position());
                assertTrue(chunk.capacity() >= 1 << 20 && chunk.remaining() == chunk.capacity());
                seen.add(chunk);
                // The caller scribbles over the buffer it got back while the other is written.
                chunk.put(new byte[1 << 20]).clear();
            }
            assertTrue(seen.size() <= 3, "three buffers rotate (two in flight): " + seen.size());
            assertHoldsAfterForce(f, data);
        }
        // Anything else (here: an unaligned length) is written before writeBehind returns.
        try (PageFile f = io.open(tmp.resolve("small.log"), OpenMode.CREATE_NEW, IoPurpose.WAL)) {
            ByteBuffer b = ByteBuffer.allocateDirect(100).put(random(100, 3)).flip();
            assertSame(b, f.writeBehind(b, 0));
            assertEquals(100, f.size());
        }
    }

    @Test
    void aMergeInputIsReadAheadAMegabyteAtATime() throws Exception {
        NativeStorageIO io = directIo();
        Path file = tmp.resolve("input.sst");
        byte[] data = random((3 << 20) + 1234, 21);
        Files.write(file, data);
        try (PageFile f = io.open(file, OpenMode.READ, IoPurpose.MERGE)) {
            long before = io.directBytesRead();
            ByteBuffer page = alignedBuffer(4096);
            byte[] back = new byte[data.length];
            int pages = data.length / 4096;
            for (int p = 0; p < pages; p++) {
                page.clear();
                f.readFully(page, (long) p * 4096);
                page.flip().get(back, p * 4096, 4096);
            }
            // The unaligned tail past the last whole page, then pages out of order.
            ByteBuffer tail = ByteBuffer.allocateDirect(data.length - pages * 4096);
            f.readFully(tail, (long) pages * 4096);
            tail.flip().get(back, pages * 4096, tail.capacity());
            assertArrayEquals(data, back);
            long read = io.directBytesRead() - before;
            assertTrue(read >= 3 << 20 && read <= data.length + 4096, "whole windows, each byte once: " + read);
            for (int p : new int[] {700, 3, 699, 256, 255}) {
                page.clear();
                f.readFully(page, (long) p * 4096);
                byte[] one = new byte[4096];
                page.flip().get(one);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, p * 4096, p * 4096 + 4096), one, "page " + p);
            }
            assertThrows(java.io.EOFException.class, () -> f.readFully(alignedBuffer(8192), data.length - 4096L));
        }
    }

    @Test
    void readsAheadOfAMergeInputStayInTheWindowsAndFarJumpsReadOnlyTheirRange() throws Exception {
        NativeStorageIO io = directIo();
        Path file = tmp.resolve("tree.sst");
        byte[] data = random(8 << 20, 23);
        Files.write(file, data);
        int pages = data.length / 4096;
        try (PageFile f = io.open(file, OpenMode.READ, IoPurpose.MERGE)) {
            long before = io.directBytesRead();
            ByteBuffer page = alignedBuffer(4096);
            byte[] one = new byte[4096];
            for (int p = 0; p < pages; p++) {
                // As a bulk-loaded tree is read: every 60 leaves, the interior page written after
                // them (read first, ~240 KB ahead), and now and then the root at the end.
                int[] order = p % 60 == 0 && p + 60 < pages ? new int[] {p + 60, p} : new int[] {p};
                if (p % 700 == 0) {
                    order = new int[] {pages - 1, p};
                }
                for (int q : order) {
                    page.clear();
                    f.readFully(page, (long) q * 4096);
                    page.flip().get(one);
                    assertArrayEquals(java.util.Arrays.copyOfRange(data, q * 4096, q * 4096 + 4096), one, "page " + q);
                }
            }
            long read = io.directBytesRead() - before;
            // Each window once, the one read ahead past the end at most, and the root's jumps alone.
            assertTrue(read <= data.length + (1 << 20) + 4 * 4096, "no window read twice: " + read);
        }
    }

    @Test
    void capabilitiesFollowTheFileSystemAndTheParameters() throws Exception {
        NativeStorageIO io = new NativeStorageIO();
        io.createDirectories(tmp);
        NativeStorageIO.Capabilities c = io.capabilities(tmp);
        System.out.println(tmp + " (" + Files.getFileStore(tmp).type() + "): " + c);
        assertEquals(c.fallocate(), io.supportsPreallocate());
        assertEquals(c.punchHole(), io.supportsPunchHole());
        NativeStorageIO off = new NativeStorageIO(new NativeOptions(true, false, true, false));
        off.createDirectories(tmp);
        assertFalse(off.supportsPunchHole());
        assertFalse(off.supportsPreallocate());
        try (PageFile f = off.open(tmp.resolve("x.sst"), OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            f.append(ByteBuffer.wrap(new byte[8192]));
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> f.punchHole(0, 4096));
            assertTrue(e.getMessage().contains("punch-holes=false"), e.getMessage());
            assertThrows(UnsupportedOperationException.class, () -> f.preallocate(0, 4096));
        }
    }

    @Test
    void errorsNameTheFileAndTheCall() throws Exception {
        NativeStorageIO io = new NativeStorageIO();
        Path missing = tmp.resolve("missing.sst");
        assertThrows(java.nio.file.NoSuchFileException.class, () -> io.open(missing, OpenMode.READ, IoPurpose.MERGE));
        Path file = tmp.resolve("exists.sst");
        Files.write(file, new byte[10]);
        assertThrows(java.nio.file.FileAlreadyExistsException.class,
                () -> io.open(file, OpenMode.CREATE_NEW, IoPurpose.FLUSH));
        try (PageFile f = io.open(file, OpenMode.READ, IoPurpose.READ)) {
            IOException e = assertThrows(IOException.class, () -> f.write(ByteBuffer.wrap(new byte[1]), 0));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("pwrite")
                    && e.getMessage().contains("errno 9"), e.getMessage());
        }
    }

    @Test
    void registeredAsNativeAndSelectedByName() {
        assertTrue(StorageIOs.names().contains("native"), StorageIOs.names().toString());
        assertTrue(StorageIOs.names().contains("nio"), StorageIOs.names().toString());
        StoreConfig c = StoreConfig.builder().storageIO("native", Map.of("direct", "false", "fadvise", "false")).build();
        NativeStorageIO io = assertInstanceOf(NativeStorageIO.class, c.createStorageIO());
        assertEquals(new NativeOptions(false, true, false, true), io.options());
    }
}
