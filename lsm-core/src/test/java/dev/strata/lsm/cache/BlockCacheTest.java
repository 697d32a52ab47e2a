package dev.strata.lsm.cache;

import dev.strata.lsm.CacheAdmission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockCacheTest {
    private static final int PAGE = 4096;

    private static byte[] page(int fill) {
        byte[] p = new byte[PAGE];
        Arrays.fill(p, (byte) fill);
        return p;
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void pagesAreKeyedByFileAndPageNumber(boolean offHeap) {
        BlockCache cache = BlockCache.create(1 << 20, offHeap);
        assertEquals(offHeap, cache.offHeap());
        cache.putPage(1, 7, page(1));
        cache.putPage(2, 7, page(2));
        byte[] dest = new byte[PAGE];
        assertTrue(cache.copyPage(1, 7, dest));
        assertArrayEquals(page(1), dest);
        assertTrue(cache.copyPage(2, 7, dest));
        assertArrayEquals(page(2), dest);
        assertFalse(cache.copyPage(1, 8, dest));
        assertFalse(cache.copyPage(7, 1, dest));
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void theCacheKeepsItsOwnCopyOfAPage(boolean offHeap) {
        BlockCache cache = BlockCache.create(1 << 20, offHeap);
        byte[] image = page(5);
        cache.putPage(1, 1, image);
        Arrays.fill(image, (byte) 9); // the caller reuses its buffer
        byte[] dest = new byte[PAGE];
        assertTrue(cache.copyPage(1, 1, dest));
        assertArrayEquals(page(5), dest);
        Arrays.fill(dest, (byte) 0); // and so does the reader
        assertTrue(cache.copyPage(1, 1, dest));
        assertArrayEquals(page(5), dest);
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void aSecondMissCacheTakesAnOfferedLeafOnItsSecondMissAndPutsAlways(boolean offHeap) {
        BlockCache cache = BlockCache.create(1 << 20, offHeap, CacheAdmission.SECOND_MISS);
        assertEquals(CacheAdmission.SECOND_MISS, cache.admission());
        byte[] dest = new byte[PAGE];
        assertFalse(cache.offerPage(1, 7, page(1)), "first miss: remembered, not cached");
        assertFalse(cache.copyPage(1, 7, dest));
        assertTrue(cache.offerPage(1, 7, page(1)), "second miss: cached");
        assertTrue(cache.copyPage(1, 7, dest));
        assertArrayEquals(page(1), dest);
        // The same page number of another file, or of another store's view, is another page.
        assertFalse(cache.offerPage(2, 7, page(2)));
        BlockCache other = cache.forStore();
        assertEquals(CacheAdmission.SECOND_MISS, other.admission());
        assertFalse(other.offerPage(1, 8, page(3)));
        assertTrue(other.offerPage(1, 8, page(3)), "views share the admission's memory of their own keys");
        assertFalse(cache.copyPage(1, 8, dest), "another store's page");
        // putPage is not an offer: it caches at once.
        cache.putPage(3, 1, page(4));
        assertTrue(cache.copyPage(3, 1, dest));
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void anEveryMissCacheTakesEveryOfferedLeaf(boolean offHeap) {
        BlockCache cache = BlockCache.create(1 << 20, offHeap);
        assertEquals(CacheAdmission.EVERY_MISS, cache.admission());
        assertTrue(cache.offerPage(1, 7, page(1)));
        byte[] dest = new byte[PAGE];
        assertTrue(cache.copyPage(1, 7, dest));
        assertArrayEquals(page(1), dest);
        assertFalse(BlockCache.disabled().offerPage(1, 7, page(1)), "a disabled cache takes nothing");
        BlockCache none = BlockCache.create(0, offHeap, CacheAdmission.SECOND_MISS);
        assertFalse(none.offerPage(1, 7, page(1)));
        assertFalse(none.offerPage(1, 7, page(1)));
        assertEquals(CacheAdmission.SECOND_MISS, none.admission(), "what it was created with, though it caches nothing");
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void aPageOfAnotherSizeIsAMiss(boolean offHeap) {
        BlockCache cache = BlockCache.create(1 << 20, offHeap);
        cache.putPage(1, 1, page(3));
        assertFalse(cache.copyPage(1, 1, new byte[2 * PAGE]));
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void invalidateFileDropsOnlyThatFile(boolean offHeap) {
        BlockCache cache = BlockCache.create(1 << 20, offHeap);
        for (int page = 0; page < 10; page++) {
            cache.putPage(1, page, page(page));
            cache.putPage(2, page, page(100 + page));
        }
        cache.invalidateFile(1, 10);
        byte[] dest = new byte[PAGE];
        for (int page = 0; page < 10; page++) {
            assertFalse(cache.copyPage(1, page, dest));
            assertTrue(cache.copyPage(2, page, dest));
            assertArrayEquals(page(100 + page), dest);
        }
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void evictionRunsOnTheWritingThread(boolean offHeap) {
        long capacity = 16L * PAGE;
        BlockCache cache = BlockCache.create(capacity, offHeap);
        for (int page = 0; page < 1000; page++) {
            cache.putPage(1, page, page(page));
            // No background maintenance to wait for: the put itself evicted what did not fit.
            assertTrue(cache.weightedSize() <= capacity, "charged " + cache.weightedSize() + " after page " + page);
        }
        assertTrue(cache.stats().evictionCount() >= 1000 - 16, cache.stats().toString());
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void evictedPagesGiveTheirArraysBackForReuse(boolean offHeap) {
        long capacity = 16L * PAGE;
        BlockCache cache = BlockCache.create(capacity, offHeap);
        for (int page = 0; page < 1000; page++) {
            cache.putPage(1, page, page(page));
            // Each eviction returns an array that the next put takes: the pool never grows
            // beyond the few pages evicted by one put.
            assertTrue(cache.pooledPages() <= 2, "pooled " + cache.pooledPages() + " after page " + page);
        }
        cache.clear();
        long cached = 1000 - cache.stats().evictionCount();
        assertTrue(cache.pooledPages() >= cached, "pooled " + cache.pooledPages() + ", cached " + cached);
        // A cleared page is gone even though its array lives on in the pool.
        byte[] dest = new byte[PAGE];
        for (int page = 0; page < 1000; page++) {
            assertFalse(cache.copyPage(1, page, dest), "page " + page);
        }
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void aReaderNeverSeesAPageTornByItsReuse(boolean offHeap) throws Exception {
        // A small cache, so that pages are evicted and their arrays refilled with other
        // pages while readers copy them. Every page is filled with its own number: a copy
        // the cache reports as a hit must be uniform and hold the page asked for.
        BlockCache cache = BlockCache.create(8L * (PAGE + 64), offHeap);
        int pages = 64;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong hits = new AtomicLong();
        Thread[] readers = new Thread[2];
        for (int r = 0; r < readers.length; r++) {
            int seed = r;
            readers[r] = new Thread(() -> {
                byte[] dest = new byte[PAGE];
                int p = seed;
                while (!stop.get() && failure.get() == null) {
                    p = (p * 31 + 7) % pages;
                    if (cache.copyPage(1, p, dest)) {
                        hits.incrementAndGet();
                        for (int i = 0; i < PAGE; i++) {
                            if (dest[i] != (byte) p) {
                                failure.set("page " + p + " byte " + i + " is " + dest[i]);
                                return;
                            }
                        }
                    }
                }
            });
            readers[r].start();
        }
        byte[] image = new byte[PAGE];
        for (int round = 0; round < 20_000 && failure.get() == null; round++) {
            int p = round % pages;
            Arrays.fill(image, (byte) p);
            cache.putPage(1, p, image);
        }
        stop.set(true);
        for (Thread t : readers) {
            t.join();
        }
        assertNull(failure.get());
        assertTrue(hits.get() > 0, "no reader ever hit the cache");
    }

    @Test
    void disabledCacheHoldsNothing() {
        BlockCache cache = BlockCache.disabled();
        cache.putPage(1, 1, page(1));
        assertFalse(cache.copyPage(1, 1, new byte[PAGE]));
        assertEquals(0, cache.weightedSize());
    }
}
