package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.sstable.EntryType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * Time to add one PUT (16-byte key, 100-byte value) to a {@link Memtable}, in random key
 * order: of keys each new to the memtable ({@code keyPool} 1,048,576), or mostly of keys it
 * already holds ({@code keyPool} 65,536: overwrites, as a cache or a counter store writes).
 *
 * <p>A memtable that never stops growing would make later iterations slower than earlier
 * ones (a deeper skip list, more heap to scan), so, like the store, the benchmark switches
 * to a fresh memtable once {@link Memtable#approximateBytes()} reaches
 * {@code memtableBytes} (the store's default, {@value StoreConfig#DEFAULT_MEMTABLE_BYTES}
 * bytes). The cost of discarding full memtables, as garbage, is part of the measurement,
 * as it is part of a store's write path; the flush that would follow is not.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MemtablePutBench extends BenchmarkDefaults {
    /**
     * Keys the puts cycle through. 1,048,576 is more than a full default memtable holds (about
     * 370,000 entries of 180 charged bytes), so no memtable sees the same user key twice;
     * 65,536 makes most puts a newer version of a key the memtable holds.
     */
    @Param({"1048576", "65536"})
    public int keyPool;

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
        keys = KeySpace.keys(0, keyPool);
        value = KeySpace.value(1);
        memtable = new Memtable(1, offHeap);
    }

    /** One put; returns the memtable so that the JIT cannot drop the insert. */
    @Benchmark
    public Memtable put() {
        if (memtable.approximateBytes() >= memtableBytes) {
            memtable = new Memtable(memtable.walSegment() + 1, offHeap);
        }
        // The pool's keys are already in random order (KeySpace), so cycling through it is a random insert.
        byte[] key = keys[next];
        if (++next == keyPool) {
            next = 0;
        }
        memtable.add(key, ++seqno, EntryType.PUT, value);
        return memtable;
    }
}
