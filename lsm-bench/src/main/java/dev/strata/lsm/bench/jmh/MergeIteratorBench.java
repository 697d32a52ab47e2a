package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.TableIterator;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Entries per second through a full pass of a {@link MergingIterator} over {@code inputs}
 * sources holding {@value #ENTRIES} entries in all, reading every entry's key, sequence
 * number, type and value as a merge does.
 *
 * <p>Entry {@code i} of the sorted key set goes to input {@code i % inputs}, so the inputs
 * overlap over the whole key range and the merge heap changes its top at every step, the
 * worst case for a merge and the usual one for tiered components. The total stays fixed,
 * so going from 2 to 10 inputs shows the cost of the deeper heap.
 *
 * <ul>
 *   <li>{@code source=sstable}: {@link TableIterator}s over tables opened with
 *       {@link BlockCache#disabled()}, as the engine opens merge inputs; pages are read and
 *       verified through the file (from the OS page cache) and every value is decoded.</li>
 *   <li>{@code source=memtable}: {@link Memtable} iterators, which hand out stored arrays, so
 *       this is close to the merge's own cost.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MergeIteratorBench extends BenchmarkDefaults {
    /** Entries over all inputs. */
    public static final int ENTRIES = 100_000;

    /** Number of merged inputs. */
    @Param({"2", "10"})
    public int inputs;

    /** {@code sstable} or {@code memtable}. */
    @Param({"sstable", "memtable"})
    public String source;

    private ScratchDirectory dir;
    private final List<TableFixture> tables = new ArrayList<>();
    private final List<Memtable> memtables = new ArrayList<>();

    /** Builds the inputs and checks that one pass sees every entry. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        byte[][] keys = KeySpace.sortedKeys(0, ENTRIES);
        byte[] value = KeySpace.value(8);
        byte[][][] split = new byte[inputs][][];
        for (int in = 0; in < inputs; in++) {
            split[in] = new byte[(ENTRIES - in + inputs - 1) / inputs][];
        }
        for (int i = 0; i < ENTRIES; i++) {
            split[i % inputs][i / inputs] = keys[i];
        }
        switch (source) {
            case "sstable" -> {
                dir = ScratchDirectory.create("strata-jmh-merge-");
                StorageIO io = new FileChannelStorageIO();
                for (int in = 0; in < inputs; in++) {
                    // Disjoint sequence-number ranges per input, as the components of a tree have.
                    tables.add(TableFixture.create(io, dir.resolve("input-" + in + ".sst"), split[in],
                            1 + (long) in * ENTRIES, value, in + 1, BlockCache.disabled()));
                }
            }
            case "memtable" -> {
                for (int in = 0; in < inputs; in++) {
                    Memtable m = new Memtable(in + 1);
                    for (int j = 0; j < split[in].length; j++) {
                        m.add(split[in][j], 1 + (long) in * ENTRIES + j, EntryType.PUT, value);
                    }
                    memtables.add(m);
                }
            }
            default -> throw new IllegalArgumentException("source must be sstable or memtable, got " + source);
        }
        long seen = 0;
        try (MergingIterator merged = open()) {
            for (merged.seekToFirst(); merged.valid(); merged.next()) {
                seen++;
            }
        }
        if (seen != ENTRIES) {
            throw new IllegalStateException("a merge pass over " + inputs + " " + source + " inputs saw " + seen
                    + " entries instead of " + ENTRIES);
        }
    }

    /** One full merge pass over all inputs. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public long fullPass(Blackhole bh) throws IOException {
        long count = 0;
        try (MergingIterator merged = open()) {
            for (merged.seekToFirst(); merged.valid(); merged.next()) {
                bh.consume(merged.key());
                bh.consume(merged.seqno());
                bh.consume(merged.type());
                bh.consume(merged.value());
                count++;
            }
        }
        return count;
    }

    /** A new merge over fresh iterators of every input, positioned nowhere. */
    private MergingIterator open() {
        List<InternalIterator> its = new ArrayList<>(inputs);
        for (TableFixture t : tables) {
            its.add(t.reader().iterator());
        }
        for (Memtable m : memtables) {
            its.add(m.iterator());
        }
        return new MergingIterator(its);
    }

    /** Closes the tables and deletes the scratch directory. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            for (TableFixture t : tables) {
                t.close();
            }
        } finally {
            tables.clear();
            memtables.clear();
            if (dir != null) {
                dir.close();
            }
        }
    }
}
