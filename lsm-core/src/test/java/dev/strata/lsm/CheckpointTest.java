package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LsmStore#checkpoint}: an openable store holding every acknowledged write, independent of its source. */
class CheckpointTest {
    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    @Test
    void aCheckpointOpensWithEveryWriteBeforeItAndNoneAfter() throws IOException {
        StoreConfig config = StoreConfig.builder().memtableBytes(256 << 10).build();
        Path source = dir.resolve("source");
        Path target = dir.resolve("checkpoint");
        try (LsmStore store = LsmStore.open(source, config)) {
            for (int i = 0; i < 20_000; i++) {
                store.put(key(i), ("v" + i).getBytes());
            }
            store.delete(key(7));
            store.put(key(3), "memtable".getBytes());
            store.checkpoint(target);
            store.put(key(1), "after".getBytes());
            store.delete(key(2));
            store.compactRange(null, null);
            assertThrows(IllegalArgumentException.class, () -> store.checkpoint(target), "target exists");
            assertThrows(IllegalArgumentException.class, () -> store.checkpoint(dir.resolve("no/such/parent")));
        }
        assertFalse(Files.exists(dir.resolve("checkpoint.checkpoint-tmp")));
        try (Stream<Path> files = Files.list(target)) {
            assertTrue(files.noneMatch(p -> p.toString().endsWith(".wal")), "a checkpoint needs no WAL");
        }
        try (LsmStore cp = LsmStore.open(target, config)) {
            assertArrayEquals("memtable".getBytes(), cp.get(key(3)));
            assertArrayEquals("v1".getBytes(), cp.get(key(1)));
            assertArrayEquals("v2".getBytes(), cp.get(key(2)));
            assertNull(cp.get(key(7)));
            assertArrayEquals("v19999".getBytes(), cp.get(key(19_999)));
            // The checkpoint is a store of its own: writes to it do not reach the source.
            cp.put(key(5), "checkpoint".getBytes());
            cp.compactRange(null, null);
        }
        try (LsmStore store = LsmStore.open(source, config)) {
            assertArrayEquals("after".getBytes(), store.get(key(1)));
            assertNull(store.get(key(2)));
            assertArrayEquals("v5".getBytes(), store.get(key(5)));
        }
    }

    @Test
    void checkpointsTakenWhileAWriterRunsHoldAPrefixOfItsWrites() throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy("size-tiered", Map.of()).build();
        int keys = 300;
        AtomicLong written = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (LsmStore store = LsmStore.open(dir.resolve("source"), config)) {
            Thread writer = new Thread(() -> {
                // Write i sets key i % keys to i: a prefix of the history is recognizable by its values.
                for (long i = 0; !stop.get(); i++) {
                    store.put(key(i % keys), ByteBuffer.allocate(64).putLong(i).array());
                    written.set(i + 1);
                }
            });
            writer.start();
            try {
                for (int c = 0; c < 5; c++) {
                    while (written.get() < (c + 1) * 3000L) {
                        Thread.onSpinWait();
                    }
                    long acknowledged = written.get();
                    store.checkpoint(dir.resolve("cp" + c));
                    checkPrefix(dir.resolve("cp" + c), config, keys, acknowledged);
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }

    /** The checkpoint holds the state after some n ≥ acknowledged writes of the history. */
    private static void checkPrefix(Path checkpoint, StoreConfig config, int keys, long acknowledged) {
        try (LsmStore cp = LsmStore.open(checkpoint, config)) {
            long newest = -1;
            long[] values = new long[keys];
            for (int k = 0; k < keys; k++) {
                byte[] v = cp.get(key(k));
                values[k] = v == null ? -1 : ByteBuffer.wrap(v).getLong();
                newest = Math.max(newest, values[k]);
            }
            long n = newest + 1;
            assertTrue(n >= acknowledged, "checkpoint lost acknowledged writes: holds " + n + " of " + acknowledged);
            for (int k = 0; k < keys; k++) {
                // The last write of key k below n.
                long expected = n - 1 - Math.floorMod(n - 1 - k, keys);
                assertEquals(expected < 0 ? -1 : expected, values[k], "key " + k + " in a checkpoint of " + n + " writes");
            }
        }
    }
}
