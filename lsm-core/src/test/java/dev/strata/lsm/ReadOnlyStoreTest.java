package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LsmStore#openReadOnly} beside a writer, and {@link LsmStore#refresh()}. */
class ReadOnlyStoreTest {
    @TempDir
    Path root;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aReaderSeesTheStateItFoundUntilItRefreshesAndTouchesNothingOfTheWriter() throws IOException {
        Path dir = root.resolve("store");
        StoreConfig config = StoreConfig.builder().memtableBytes(256 << 10).build();
        try (LsmStore writer = LsmStore.open(dir, config)) {
            for (int i = 0; i < 10_000; i++) {
                writer.put(key(i), ("a" + i).getBytes());
            }
            writer.flush();
            // The flushes' merge would otherwise add its output while the names are compared.
            writer.awaitMerges();
            writer.put(key(1), "in the WAL".getBytes());
            writer.delete(key(2));
            List<String> before = names(dir);
            try (LsmStore reader = LsmStore.openReadOnly(dir, config)) {
                // The writer's own sweeps may delete a flushed WAL segment meanwhile; the reader adds nothing.
                assertTrue(before.containsAll(names(dir)), "opening a reader added files to the writer's directory: "
                        + names(dir) + " after " + before);
                assertArrayEquals("in the WAL".getBytes(), reader.get(key(1)));
                assertNull(reader.get(key(2)));
                assertArrayEquals("a9999".getBytes(), reader.get(key(9999)));
                assertEquals(dir, reader.directory());
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                        () -> reader.put(key(1), "x".getBytes()));
                assertTrue(e.getMessage().contains("read-only"), e.getMessage());
                assertThrows(UnsupportedOperationException.class, () -> reader.delete(key(1)));
                assertThrows(UnsupportedOperationException.class, () -> reader.write(new WriteBatch().put(key(1), key(1))));
                assertThrows(UnsupportedOperationException.class, reader::flush);
                assertThrows(UnsupportedOperationException.class, () -> reader.compactRange(null, null));
                assertThrows(UnsupportedOperationException.class, () -> reader.checkpoint(root.resolve("cp")));

                // The writer rewrites everything: its old tables and WAL segments are deleted.
                for (int i = 0; i < 10_000; i++) {
                    writer.put(key(i), ("b" + i).getBytes());
                }
                writer.compactRange(null, null);
                writer.awaitMerges();
                try (Cursor c = reader.scan(null, null)) {
                    int n = 0;
                    while (c.next()) {
                        long k = ByteBuffer.wrap(c.key()).getLong();
                        assertTrue(k != 2);
                        if (k != 1) {
                            assertArrayEquals(("a" + k).getBytes(), c.value(), "key " + k);
                        }
                        n++;
                    }
                    assertEquals(9_999, n, "the reader reads the state it found");
                }
                Snapshot old = reader.snapshot();
                reader.refresh();
                assertArrayEquals("b1".getBytes(), reader.get(key(1)));
                assertArrayEquals("b2".getBytes(), reader.get(key(2)));
                assertThrows(StoreClosedException.class, () -> old.get(key(1)), "a snapshot of the old state");
                old.close();
            }
            try (Stream<Path> s = Files.list(root)) {
                assertEquals(List.of("store"), s.map(p -> p.getFileName().toString()).toList(),
                        "the reader's staging directory is gone after close");
            }
            writer.put(key(3), "still writable".getBytes());
        }
        assertThrows(UnsupportedOperationException.class, () -> {
            try (LsmStore s = LsmStore.open(dir, config)) {
                s.refresh();
            }
        });
        StoreException e = assertThrows(StoreException.class, () -> LsmStore.openReadOnly(root.resolve("none"), config));
        assertTrue(e.getMessage().contains("none"), e.getMessage());
    }

    @Test
    void readersBesideARunningWriterSeeOnlyPrefixesOfItsHistory() throws Exception {
        Path dir = root.resolve("store");
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy("size-tiered", Map.of()).build();
        int keys = 300;
        AtomicLong written = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (LsmStore writer = LsmStore.open(dir, config)) {
            Thread t = new Thread(() -> {
                try {
                    for (long i = 0; !stop.get(); i++) {
                        writer.put(key(i % keys), ByteBuffer.allocate(64).putLong(i).array());
                        written.set(i + 1);
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            t.start();
            try (LsmStore reader = LsmStore.openReadOnly(dir, config)) {
                for (int round = 0; round < 8; round++) {
                    long target = written.get() + 2000;
                    while (written.get() < target && failure.get() == null) {
                        Thread.onSpinWait();
                    }
                    long acknowledged = written.get();
                    reader.refresh();
                    long[] values = new long[keys];
                    long newest = -1;
                    for (int k = 0; k < keys; k++) {
                        byte[] v = reader.get(key(k));
                        values[k] = v == null ? -1 : ByteBuffer.wrap(v).getLong();
                        newest = Math.max(newest, values[k]);
                    }
                    long n = newest + 1;
                    assertTrue(n >= acknowledged, "round " + round + ": the reader holds " + n + " of " + acknowledged
                            + " acknowledged writes");
                    for (int k = 0; k < keys; k++) {
                        long expected = n - 1 - Math.floorMod(n - 1 - k, keys);
                        assertEquals(expected < 0 ? -1 : expected, values[k], "round " + round + ", key " + k);
                    }
                }
            } finally {
                stop.set(true);
                t.join();
            }
            assertNull(failure.get());
        }
    }
}
