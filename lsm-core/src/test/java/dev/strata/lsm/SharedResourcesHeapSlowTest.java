package dev.strata.lsm;

import dev.strata.lsm.testkit.SlowTest;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 100 stores sharing one memtable budget, one cache and one background pool, loaded with 20 MB
 * (under every store's own 1 MiB memtable: without the budget all of it would stay in
 * memtables): the budget's and the cache's own accounting stay within their sizes, and the
 * heap the loading adds (after full collections) is printed. It is not asserted: one run
 * measured +4.5 MB, another +25 MB with the memtables within the budget; what holds the rest
 * is not traced yet (docs/engine.md, "Shared resources"). A minute or more: the slow lane.
 *
 * <p>{@code -DargLine=-DheapTest.threads=0} runs the same with each store's own threads.
 */
@SlowTest
class SharedResourcesHeapSlowTest {
    private static final int STORES = 100;
    private static final long BUDGET = 2L << 20;
    private static final long CACHE = 1L << 20;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int store, int i) {
        byte[] v = new byte[1000];
        Arrays.fill(v, (byte) store);
        System.arraycopy(key(i), 0, v, 0, 10);
        return v;
    }

    /** Heap used after full collections (System.gc() asks for one; three, to let reference queues drain). */
    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    @Test
    void hundredLoadedStoresKeepMemtablesAndCacheWithinTheirSizesAndReportTheHeap() throws Exception {
        try (SharedResources shared = SharedResources.builder().memtableBudgetBytes(BUDGET).blockCacheBytes(CACHE)
                .backgroundThreads(Integer.getInteger("heapTest.threads", 2)).build()) {
            StoreConfig config = StoreConfig.builder().memtableBytes(1L << 20).sharedResources(shared).build();
            long before = usedHeapAfterGc();
            List<LsmStore> stores = new ArrayList<>();
            try {
                for (int s = 0; s < STORES; s++) {
                    stores.add(LsmStore.open(dir.resolve("s" + s), config));
                }
                long opened = usedHeapAfterGc();
                int perStore = 200;  // 100 stores x 200 x ~1 KB = 20 MB written, 200 KB a store
                for (int i = 0; i < perStore; i++) {
                    for (int s = 0; s < STORES; s++) {
                        stores.get(s).put(key(i), value(s, i));
                    }
                }
                // Reads fill the cache (up to its capacity) with every store's pages.
                for (int s = 0; s < STORES; s++) {
                    for (int i = 0; i < perStore; i += 7) {
                        assertArrayEquals(value(s, i), stores.get(s).get(key(i)), "store " + s + " key " + i);
                    }
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (shared.memtableBytesUsed() > BUDGET && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                long loaded = usedHeapAfterGc();
                long memtables = shared.memtableBytesUsed();
                long cached = shared.blockCacheWeightedBytes();
                System.out.printf("SharedResourcesHeapSlowTest: heap before %,d B, %d stores opened %,d B (%,d B a store), "
                                + "loaded %,d B (+%,d B; memtables %,d B, cache %,d B; budget %,d B, cache capacity %,d B)%n",
                        before, STORES, opened, (opened - before) / STORES, loaded, loaded - opened, memtables, cached,
                        BUDGET, CACHE);
                assertTrue(memtables <= BUDGET, "memtables hold " + memtables + " B, over the budget " + BUDGET);
                assertTrue(cached <= CACHE, "the cache holds " + cached + " B, over its capacity " + CACHE);
                assertTrue(cached > 0, "nothing cached");
            } finally {
                for (LsmStore s : stores) {
                    s.close();
                }
            }
        }
    }
}
