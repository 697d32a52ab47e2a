package dev.strata.lsm.io;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TableWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteBehindPageFileTest {
    private static final int BUF = 64 << 10;

    @TempDir
    Path dir;

    private static ByteBuffer filled(ByteBuffer b, int seed) {
        b.clear();
        for (int i = 0; i < b.capacity(); i++) {
            b.put((byte) (seed * 31 + i));
        }
        return b.flip();
    }

    /** Records every write and force the delegate sees, in order. */
    private static final class Recording extends ForwardingStorageIO.ForwardingPageFile {
        final List<String> log = Collections.synchronizedList(new ArrayList<>());
        final long failAt;

        Recording(PageFile delegate, long failAt) {
            super(delegate);
            this.failAt = failAt;
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            if (position == failAt) {
                throw new IOException("No space left on device (test)");
            }
            log.add("write " + position);
            super.write(src, position);
        }

        @Override
        public void force(boolean metadata) throws IOException {
            log.add("force " + metadata);
            super.force(metadata);
        }
    }

    @Test
    void buffersWrittenBehindLandInPlaceAndForceComesAfterEveryWrite() throws IOException {
        Path p = dir.resolve("t");
        Recording rec = new Recording(new FileChannelStorageIO().open(p, OpenMode.CREATE_NEW, IoPurpose.FLUSH), -1);
        int n = 10;
        try (WriteBehindPageFile f = new WriteBehindPageFile(rec, 2L * BUF)) {
            ByteBuffer b = AlignedBuffers.allocate(BUF, AlignedBuffers.PAGE_ALIGNMENT);
            for (int i = 0; i < n; i++) {
                ByteBuffer handed = filled(b, i);
                b = f.writeBehind(handed, (long) i * BUF);
                assertNotSame(handed, b, "the caller gets another buffer while its own is written behind");
                assertEquals(0, b.position());
                assertEquals(b.capacity(), b.limit());
                assertTrue(b.capacity() >= BUF);
            }
            assertEquals((long) n * BUF, f.size());
            f.force(true);
            // Every write and background fdatasync before the final force.
            List<String> log = new ArrayList<>(rec.log);
            assertEquals("force true", log.get(log.size() - 1));
            long writes = log.stream().filter(s -> s.startsWith("write")).count();
            long syncs = log.stream().filter(s -> s.equals("force false")).count();
            assertEquals(n, writes);
            // One background force per 2 buffers at most (none starts while one runs), and at least one.
            assertTrue(syncs >= 1 && syncs <= n / 2, "background forces: " + syncs);
            for (int i = 0; i < n; i++) {
                assertTrue(log.contains("write " + (long) i * BUF));
            }
        }
        byte[] bytes = Files.readAllBytes(p);
        assertEquals((long) n * BUF, bytes.length);
        for (int i = 0; i < n; i++) {
            byte[] want = new byte[BUF];
            filled(ByteBuffer.allocate(BUF), i).get(want);
            byte[] got = new byte[BUF];
            System.arraycopy(bytes, i * BUF, got, 0, BUF);
            assertArrayEquals(want, got, "buffer " + i);
        }
    }

    @Test
    void aFailedWriteBehindFailsTheNextCallsAndCloseNamingFileAndOffset() throws IOException {
        Path p = dir.resolve("t");
        long failAt = 3L * BUF;
        Recording rec = new Recording(new FileChannelStorageIO().open(p, OpenMode.CREATE_NEW, IoPurpose.FLUSH), failAt);
        WriteBehindPageFile f = new WriteBehindPageFile(rec, 0);
        ByteBuffer b = AlignedBuffers.allocate(BUF, AlignedBuffers.PAGE_ALIGNMENT);
        for (int i = 0; i < 4; i++) {
            b = f.writeBehind(filled(b, i), (long) i * BUF); // the failing write is behind the caller
        }
        IOException e = assertThrows(IOException.class, () -> f.force(true));
        assertTrue(e.getMessage().contains("offset " + failAt), e.getMessage());
        assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
        assertTrue(!rec.log.contains("force true"), "a failed file is not forced as if complete");
        ByteBuffer again = b;
        assertThrows(IOException.class, () -> f.writeBehind(filled(again, 9), 4L * BUF));
        assertThrows(IOException.class, () -> f.size());
        IOException atClose = assertThrows(IOException.class, f::close);
        assertTrue(atClose.getMessage().contains("offset " + failAt), atClose.getMessage());
    }

    @Test
    void closeWaitsForPendingWritesAndSurfacesTheirFailure() throws Exception {
        Path p = dir.resolve("t");
        CountDownLatch release = new CountDownLatch(1);
        PageFile slow = new ForwardingStorageIO.ForwardingPageFile(
                new FileChannelStorageIO().open(p, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                throw new IOException("disk gone (test)");
            }
        };
        WriteBehindPageFile f = new WriteBehindPageFile(slow, 0);
        ByteBuffer b = AlignedBuffers.allocate(BUF, AlignedBuffers.PAGE_ALIGNMENT);
        f.writeBehind(filled(b, 1), 0); // returns at once: the write waits behind the caller
        release.countDown();
        IOException e = assertThrows(IOException.class, f::close);
        assertTrue(e.getMessage().contains("disk gone"), e.getMessage());
        assertThrows(IOException.class, () -> f.size(), "closed");
    }


    @Test
    void closeAfterAFailureWaitsForTheLaterWritesBeforeClosingTheFile() throws Exception {
        Path p = dir.resolve("t");
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean secondDone = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean closedAfterSecond = new java.util.concurrent.atomic.AtomicBoolean();
        PageFile delegate = new ForwardingStorageIO.ForwardingPageFile(
                new FileChannelStorageIO().open(p, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                if (position == 0) {
                    throw new IOException("first write fails (test)");
                }
                try {
                    release.await(10, TimeUnit.SECONDS);
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                super.write(src, position);
                secondDone.set(true);
            }

            @Override
            public void close() throws IOException {
                closedAfterSecond.set(secondDone.get());
                super.close();
            }
        };
        WriteBehindPageFile f = new WriteBehindPageFile(delegate, 0);
        ByteBuffer b = AlignedBuffers.allocate(BUF, AlignedBuffers.PAGE_ALIGNMENT);
        b = f.writeBehind(filled(b, 0), 0);
        f.writeBehind(filled(b, 1), BUF);
        IOException e = assertThrows(IOException.class, () -> f.force(true));
        assertTrue(e.getMessage().contains("first write fails"), e.getMessage());
        release.countDown();
        assertThrows(IOException.class, f::close);
        assertTrue(closedAfterSecond.get(), "the file was closed while a write behind the caller was still running");
    }

    @Test
    void aFailedBackgroundForceFailsTheFinalForce() throws IOException {
        Path p = dir.resolve("t");
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        PageFile delegate = new ForwardingStorageIO.ForwardingPageFile(
                new FileChannelStorageIO().open(p, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
            @Override
            public void force(boolean metadata) throws IOException {
                log.add("force " + metadata);
                if (!metadata) {
                    throw new IOException("Input/output error (test)");
                }
                super.force(metadata);
            }
        };
        WriteBehindPageFile f = new WriteBehindPageFile(delegate, BUF);
        ByteBuffer b = AlignedBuffers.allocate(BUF, AlignedBuffers.PAGE_ALIGNMENT);
        f.writeBehind(filled(b, 0), 0);
        IOException e = assertThrows(IOException.class, () -> f.force(true));
        assertTrue(e.getMessage().contains("background force of " + p), e.getMessage());
        assertTrue(e.getMessage().contains("Input/output error"), e.getMessage());
        assertEquals(List.of("force false"), log, "a file whose background force failed is not forced as if sound");
        assertThrows(IOException.class, f::close);
    }
    @Test
    void tableWriterFileIsByteForByteTheFileWrittenWithoutWriteBehind() throws IOException {
        // The default nio storage IO writes behind; a forwarding wrapper of it does not.
        StoreConfig nio = StoreConfig.builder().build();
        StoreConfig plain = StoreConfig.builder().storageIO(new ForwardingStorageIO(new FileChannelStorageIO())).build();
        Path a = dir.resolve("a.sst");
        Path b = dir.resolve("b.sst");
        for (Object[] c : new Object[][] {{a, nio}, {b, plain}}) {
            try (TableWriter w = TableWriter.create((Path) c[0], (StoreConfig) c[1])) {
                for (int i = 0; i < 60_000; i++) {
                    byte[] k = String.format("key%08d", i).getBytes();
                    if (i % 97 == 0) {
                        w.delete(k);
                    } else {
                        w.put(k, ("value-" + i + "-".repeat(i % 40)).getBytes());
                    }
                }
                w.finish();
            }
        }
        assertTrue(Files.size(a) > 2L << 20, "several 1 MiB buffers written behind: " + Files.size(a));
        assertArrayEquals(Files.readAllBytes(b), Files.readAllBytes(a));
        try (LsmStore store = LsmStore.open(dir.resolve("db"), nio)) {
            store.ingest(List.of(a), dev.strata.lsm.IngestOptions.defaults());
            assertArrayEquals(("value-12345" + "-".repeat(12345 % 40)).getBytes(), store.get("key00012345".getBytes()));
            assertEquals(null, store.get("key00000097".getBytes()));
        }
    }
}
