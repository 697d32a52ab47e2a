package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.sstable.EntryType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * Time per entry to insert PUTs (random 16-byte keys, 100-byte values, one writer) into a
 * {@link Memtable} the way the store's write-group leader does: one entry at a time
 * ({@link #single}) and a write batch of {@value #BATCH} entries added one by one in sequence
 * order ({@link #batchOneByOne}). Scores are nanoseconds per entry
 * ({@link OperationsPerInvocation}). (A sorted batch insert was measured with this benchmark
 * and not kept: docs/benchmarks.md, "Memtable inserts in batches".)
 *
 * <p>Keys come from a pool of 1,048,576 distinct keys in random order, more than a default
 * memtable holds, so every insert is of a key new to its memtable; like the store, the
 * benchmark switches to a fresh memtable once {@link Memtable#approximateBytes()} reaches
 * {@code memtableBytes}, so a score averages over memtables from empty to full.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MemtableInsertBench extends BenchmarkDefaults {
    /** Entries per write batch in the batch benchmarks. */
    static final int BATCH = 16;
    private static final int KEY_POOL = 1 << 20;

    /** Memtable size at which the benchmark switches to a new one. */
    @Param({"" + StoreConfig.DEFAULT_MEMTABLE_BYTES})
    public long memtableBytes;

    /** Whether the memtables' arenas are in direct memory ({@code <memory offHeap="true"/>}). */
    @Param({"false", "true"})
    public boolean offHeap;

    private byte[][] keys;
    private byte[] value;
    private Memtable memtable;
    private int next;
    private long seqno;

    /** Generates the key pool and the value and starts the first memtable. */
    @Setup(Level.Trial)
    public void setUp() {
        keys = KeySpace.keys(0, KEY_POOL);
        value = KeySpace.value(1);
        memtable = new Memtable(1, offHeap);
    }

    private Memtable memtable() {
        if (memtable.approximateBytes() >= memtableBytes) {
            memtable = new Memtable(memtable.walSegment() + 1, offHeap);
        }
        return memtable;
    }

    private byte[] nextKey() {
        byte[] key = keys[next];
        if (++next == KEY_POOL) {
            next = 0;
        }
        return key;
    }

    /** One entry per call. */
    @Benchmark
    public Memtable single() {
        Memtable m = memtable();
        m.add(nextKey(), ++seqno, EntryType.PUT, value);
        return m;
    }

    /** A batch of {@value #BATCH} entries, added one by one in sequence-number order. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Memtable batchOneByOne() {
        Memtable m = memtable();
        for (int i = 0; i < BATCH; i++) {
            m.add(nextKey(), ++seqno, EntryType.PUT, value);
        }
        return m;
    }
}
