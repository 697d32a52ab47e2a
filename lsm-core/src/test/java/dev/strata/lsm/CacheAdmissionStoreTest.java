package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Block cache admission on a store's read path: a leaf read once is not cached under second-miss. */
class CacheAdmissionStoreTest {
    private static final int KEYS = 20_000;
    /** Keys this far apart lie in different leaves (about 30 of these cells fill a 4 KiB leaf). */
    private static final int STRIDE = 200;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(90)).getBytes(StandardCharsets.UTF_8);
    }

    /** Reads every STRIDE-th key three times in a row; returns the store's block cache hits. */
    private long hitsOfThreeReadsEach(Path storeDir, CacheAdmission admission) {
        StoreConfig config = StoreConfig.builder().blockCacheBytes(8 << 20).blockCacheAdmission(admission).build();
        try (LsmStore store = LsmStore.open(storeDir, config)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            store.awaitMerges();
        }
        try (LsmStore store = LsmStore.open(storeDir, config)) {
            assertEquals(admission, config.blockCacheAdmission());
            long before = store.stats().blockCacheHits();
            for (int i = 0; i < KEYS; i += STRIDE) {
                for (int read = 0; read < 3; read++) {
                    assertArrayEquals(value(i), store.get(key(i)), "key " + i);
                }
            }
            return store.stats().blockCacheHits() - before;
        }
    }

    @Test
    void aLeafIsCachedOnItsSecondMissUnderSecondMissAndOnItsFirstUnderEveryMiss() {
        long every = hitsOfThreeReadsEach(dir.resolve("every"), CacheAdmission.EVERY_MISS);
        long second = hitsOfThreeReadsEach(dir.resolve("second"), CacheAdmission.SECOND_MISS);
        int read = KEYS / STRIDE;
        // Every-miss: each leaf is missed once and hit twice; second-miss: missed twice, hit once.
        // Interior pages are cached on their first miss under both, so they add the same hits.
        assertEquals(read, every - second, "every-miss " + every + " hits, second-miss " + second);
        assertTrue(second >= read, "second-miss still hits each leaf on its third read: " + second);
    }
}
