package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.sstable.TableOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Time for one {@link BlockCache#copyPage} that hits (the lookup and the copy of the image): a cache holding {@code pages} 4 KiB pages
 * of one file, with room to spare so nothing is evicted, probed in random page order.
 * This is the per-page cost that every cached lookup and scan pays on top of searching the
 * page.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BlockCacheBench extends BenchmarkDefaults {
    private static final long FILE_NUMBER = 7;

    /** Pages in the cache (4096 pages are 16 MiB). */
    @Param({"4096"})
    public int pages;

    /** Whether page images are in direct memory ({@code <memory offHeap="true"/>}). */
    @Param({"false", "true"})
    public boolean offHeap;

    private BlockCache cache;
    private ProbeSequence order;
    private byte[] dest;

    /** Fills the cache and checks that every page is there. */
    @Setup(Level.Trial)
    public void setUp() {
        int pageSize = TableOptions.DEFAULT_PAGE_SIZE;
        // Twice the pages' weight, so that the cache's own per-entry charge cannot force evictions.
        cache = BlockCache.create(2L * pages * (pageSize + 256), offHeap);
        SplittableRandom random = new SplittableRandom(6);
        for (int p = 0; p < pages; p++) {
            byte[] page = new byte[pageSize];
            random.nextBytes(page);
            cache.putPage(FILE_NUMBER, p, page);
        }
        // Caffeine applies writes in deferred maintenance: settle it so probes see a steady cache.
        cache.caffeine().cleanUp();
        dest = new byte[pageSize];
        for (int p = 0; p < pages; p++) {
            if (!cache.copyPage(FILE_NUMBER, p, dest)) {
                throw new IllegalStateException("page " + p + " missing from the block cache after warming");
            }
        }
        order = new ProbeSequence(pages, 6);
    }

    /** One cache hit. */
    @Benchmark
    public boolean hit() {
        return cache.copyPage(FILE_NUMBER, order.next(), dest);
    }
}
