package dev.strata.lsm.policies;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;

import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Asserts that a store holds exactly a model map: every get, and a full scan in order. */
public final class StoreContents {
    private StoreContents() {
    }

    public static void assertSame(TreeMap<byte[], byte[]> model, LsmStore store, String where) {
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), store.get(e.getKey()), where);
        }
        try (Cursor c = store.scan(null, null)) {
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertTrue(c.next(), where);
                assertArrayEquals(e.getKey(), c.key(), where);
                assertArrayEquals(e.getValue(), c.value(), where);
            }
            assertFalse(c.next(), where);
        }
    }
}
