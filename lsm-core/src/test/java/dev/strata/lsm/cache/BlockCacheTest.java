package dev.strata.lsm.cache;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockCacheTest {
    private static final int PAGE = 4096;

    @Test
    void pagesAreKeyedByFileAndPageNumber() {
        BlockCache cache = BlockCache.create(1 << 20);
        byte[] a = new byte[PAGE];
        byte[] b = new byte[PAGE];
        cache.put(1, 7, a);
        cache.put(2, 7, b);
        assertSame(a, cache.get(1, 7));
        assertSame(b, cache.get(2, 7));
        assertNull(cache.get(1, 8));
        assertNull(cache.get(7, 1));
    }

    @Test
    void invalidateFileDropsOnlyThatFile() {
        BlockCache cache = BlockCache.create(1 << 20);
        for (int page = 0; page < 10; page++) {
            cache.put(1, page, new byte[PAGE]);
            cache.put(2, page, new byte[PAGE]);
        }
        cache.invalidateFile(1);
        for (int page = 0; page < 10; page++) {
            assertNull(cache.get(1, page));
            assertEquals(PAGE, cache.get(2, page).length);
        }
    }

    @Test
    void evictionRunsOnTheWritingThread() {
        long capacity = 16L * PAGE;
        BlockCache cache = BlockCache.create(capacity);
        for (int page = 0; page < 1000; page++) {
            cache.put(1, page, new byte[PAGE]);
            // No background maintenance to wait for: the put itself evicted what did not fit.
            assertTrue(cache.weightedSize() <= capacity, "charged " + cache.weightedSize() + " after page " + page);
        }
        assertTrue(cache.stats().evictionCount() >= 1000 - 16, cache.stats().toString());
    }

    @Test
    void disabledCacheHoldsNothing() {
        BlockCache cache = BlockCache.disabled();
        cache.put(1, 1, new byte[PAGE]);
        assertNull(cache.get(1, 1));
        assertEquals(0, cache.weightedSize());
    }
}
