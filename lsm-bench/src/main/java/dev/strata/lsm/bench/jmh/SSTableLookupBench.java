package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.SSTableReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Time for one {@link SSTableReader#get} of a key the table holds, keys visited in random
 * order, in a table of {@code entries} PUTs (16-byte keys, 100-byte values, default table
 * options).
 *
 * <ul>
 *   <li>{@code cache=warm}: a {@link BlockCache} larger than the table, filled by looking
 *       every key up once in setup, so a lookup is the bloom probe plus a binary search of
 *       each page from root to leaf and the copy of key and value.</li>
 *   <li>{@code cache=disabled}: {@link BlockCache#disabled()}, so every lookup also reads
 *       and checksum-verifies {@code height} pages through the file. The file was just
 *       written, so those reads come from the OS page cache, not the device: this isolates
 *       Strata's read path, not the disk.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SSTableLookupBench extends BenchmarkDefaults {
    /** {@code warm} or {@code disabled}. */
    @Param({"warm", "disabled"})
    public String cache;

    /** Entries in the table. */
    @Param({"100000"})
    public int entries;

    private ScratchDirectory dir;
    private TableFixture table;
    private SSTableReader reader;
    private byte[][] keys;
    private ProbeSequence order;

    /** Writes and opens the table and, for {@code warm}, fills the cache. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = ScratchDirectory.create("strata-jmh-lookup-");
        keys = KeySpace.sortedKeys(0, entries);
        boolean warm = switch (cache) {
            case "warm" -> true;
            case "disabled" -> false;
            default -> throw new IllegalArgumentException("cache must be warm or disabled, got " + cache);
        };
        // Pages hold the raw key and value bytes with well under 100% overhead, so twice the
        // raw bytes holds the whole table; setup checks that nothing was evicted.
        long capacity = 2L * entries * (KeySpace.KEY_SIZE + KeySpace.VALUE_SIZE) + (16L << 20);
        BlockCache blockCache = warm ? BlockCache.create(capacity) : BlockCache.disabled();
        table = TableFixture.create(new FileChannelStorageIO(), dir.resolve("lookup.sst"), keys, 1,
                KeySpace.value(4), 1, blockCache);
        reader = table.reader();
        // Every lookup once: fills the cache for "warm", and proves the benchmark measures hits.
        for (byte[] key : keys) {
            InternalEntry e = reader.get(key);
            if (e == null || !Arrays.equals(e.key(), key)) {
                throw new IllegalStateException("lookup of a key the table holds failed: " + Arrays.toString(key));
            }
        }
        if (warm) {
            // Caffeine applies evictions in deferred maintenance: run it before reading the count.
            blockCache.caffeine().cleanUp();
            if (blockCache.stats().evictionCount() > 0) {
                throw new IllegalStateException("block cache of " + capacity + " bytes evicted pages while warming over a "
                        + table.fileSize() + "-byte table; it must hold the whole table");
            }
        }
        order = new ProbeSequence(entries, 4);
    }

    /** One point lookup of a present key. */
    @Benchmark
    public InternalEntry get() throws IOException {
        return reader.get(keys[order.next()]);
    }

    /** Closes the table and deletes the scratch directory. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            if (table != null) {
                table.close();
            }
        } finally {
            if (dir != null) {
                dir.close();
            }
        }
    }
}
