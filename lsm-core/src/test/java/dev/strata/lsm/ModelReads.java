package dev.strata.lsm;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks every way of reading a store against a model whose keys are ints (stored as 4-byte
 * big-endian keys): get, getAll, a forward and a backward scan, and seeks both ways with a
 * step after each. Shared by the model tests of the merge operator and of range deletes.
 */
final class ModelReads {
    private ModelReads() {
    }

    static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    /** An 8-byte big-endian value (uint64add's operands and values). */
    static byte[] u64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** Every way of reading {@code store} (or {@code snapshot}) over keys 0 .. keySpace - 1 agrees with {@code model}. */
    static void assertMatches(TreeMap<Integer, byte[]> model, LsmStore store, Snapshot snapshot, int keySpace,
                           String where) {
        for (int k = 0; k < keySpace; k++) {
            byte[] got = snapshot == null ? store.get(key(k)) : snapshot.get(key(k));
            assertArrayEquals(model.get(k), got, where + ": get " + k);
        }
        if (snapshot == null) {
            byte[][] keys = new byte[keySpace][];
            for (int k = 0; k < keySpace; k++) {
                keys[k] = key(k);
            }
            byte[][] all = store.getAll(keys);
            for (int k = 0; k < keySpace; k++) {
                assertArrayEquals(model.get(k), all[k], where + ": getAll " + k);
            }
        }
        try (Cursor c = snapshot == null ? store.scan(null, null) : snapshot.scan(null, null)) {
            for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
                assertTrue(c.next(), where + ": scan ends before " + e.getKey());
                assertArrayEquals(key(e.getKey()), c.key(), where);
                assertArrayEquals(e.getValue(), c.value(), where + ": scan " + e.getKey());
            }
            assertFalse(c.next(), where + ": extra keys in the scan");
        }
        try (Cursor c = snapshot == null ? store.scan(null, null) : snapshot.scan(null, null)) {
            boolean on = c.seekToLast();
            for (Map.Entry<Integer, byte[]> e : model.descendingMap().entrySet()) {
                assertTrue(on, where + ": backward scan ends before " + e.getKey());
                assertArrayEquals(key(e.getKey()), c.key(), where);
                assertArrayEquals(e.getValue(), c.value(), where + ": backward " + e.getKey());
                on = c.prev();
            }
            assertFalse(on, where + ": extra keys backwards");
            // Seeks to every 7th key, then a step each way.
            for (int k = 0; k < keySpace; k += 7) {
                Integer ceil = model.ceilingKey(k);
                assertEquals(ceil != null, c.seek(key(k)), where + ": seek " + k);
                if (ceil != null) {
                    assertArrayEquals(key(ceil), c.key(), where + ": seek " + k);
                    Integer lower = model.lowerKey(ceil);
                    assertEquals(lower != null, c.prev(), where + ": prev after seek " + k);
                    if (lower != null) {
                        assertArrayEquals(key(lower), c.key(), where + ": prev after seek " + k);
                    }
                }
                Integer floor = model.floorKey(k);
                assertEquals(floor != null, c.seekForPrev(key(k)), where + ": seekForPrev " + k);
                if (floor != null) {
                    assertArrayEquals(key(floor), c.key(), where + ": seekForPrev " + k);
                    Integer higher = model.higherKey(floor);
                    assertEquals(higher != null, c.next(), where + ": next after seekForPrev " + k);
                    if (higher != null) {
                        assertArrayEquals(key(higher), c.key(), where + ": next after seekForPrev " + k);
                    }
                }
            }
        }
    }

}
