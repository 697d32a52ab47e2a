package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LsmStore#estimateKeyCount()}: within 25% of the live key count with the keys in the
 * memtable, after a flush, and after a reopen; exact for distinct inserts in a memtable.
 */
class KeyCountEstimateTest {
    private static final int KEYS = 50_000;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(8).putInt(0x6b657900).putInt(i).array();
    }

    private static void assertWithin(long expected, long actual, String state) {
        assertTrue(Math.abs(actual - expected) <= expected / 4,
                state + ": estimate " + actual + " is more than 25% off " + expected);
    }

    @Test
    void smallKeysInTheMemtableFlushedAndReopened() {
        StoreConfig config = StoreConfig.builder().memtableBytes(64L << 20).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertEquals(0, store.estimateKeyCount());
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), new byte[] {(byte) i});
            }
            assertEquals(KEYS, store.estimateKeyCount(), "distinct keys in the memtable are counted exactly");
            // Overwrites and deletes of keys in the memtable.
            for (int i = 0; i < KEYS; i += 2) {
                store.put(key(i), new byte[] {2});
            }
            for (int i = 0; i < 1000; i++) {
                store.delete(key(i));
            }
            store.delete(key(KEYS + 5)); // a key that never existed
            long live = KEYS - 1000;
            assertWithin(live, store.estimateKeyCount(), "memtable");
            store.flush();
            assertWithin(live, store.estimateKeyCount(), "flushed");
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertWithin(KEYS - 1000, store.estimateKeyCount(), "reopened");
        }
    }

    @Test
    void keysSpreadOverMemtableAndTables() {
        StoreConfig config = StoreConfig.builder().memtableBytes(1L << 20).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), new byte[20]);
            }
            assertWithin(KEYS, store.estimateKeyCount(), "while flushing");
            store.flush();
            store.awaitMerges();
            assertWithin(KEYS, store.estimateKeyCount(), "after merges");
        }
    }
}
