package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.sstable.BloomFilter;
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
 * Time for one {@link BloomFilter#mightContain} (hashing the 16-byte key included) on a
 * filter over {@code keys} keys at {@code bitsPerKey} bits per key, the density tables are
 * written with by default. A present key runs all {@code k} probes; an absent one usually
 * stops at the first clear bit, so the two cases differ.
 *
 * <p>The probes cycle through {@value #PROBE_KEYS} of the keys (and as many absent ones), not
 * all of them: a lookup probes with a key its caller just built, which is in the CPU cache,
 * whereas random reads over 100,000 key arrays would mostly measure cache misses on the
 * keys. The filter's bit array is the full size, so its own misses are measured.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BloomProbeBench extends BenchmarkDefaults {
    /** Number of present and of absent keys the probes cycle through. */
    static final int PROBE_KEYS = 1024;

    /** Keys in the filter. */
    @Param({"100000"})
    public int keys;

    /** Bits per key. */
    @Param({"10"})
    public int bitsPerKey;

    private BloomFilter filter;
    private byte[][] present;
    private byte[][] absent;
    private ProbeSequence order;

    /** Builds the filter, checks that it behaves like one and picks the probe keys. */
    @Setup(Level.Trial)
    public void setUp() {
        byte[][] built = KeySpace.keys(0, keys);
        // Key numbers from a disjoint range: KeySpace guarantees distinct keys, so none was built in.
        byte[][] others = KeySpace.keys(keys, keys);
        long[] hashes = new long[keys];
        for (int i = 0; i < keys; i++) {
            hashes[i] = BloomFilter.hash(built[i]);
        }
        filter = BloomFilter.build(hashes, keys, bitsPerKey);
        int falsePositives = 0;
        for (int i = 0; i < keys; i++) {
            if (!filter.mightContain(built[i])) {
                throw new IllegalStateException("bloom filter rejects key " + i + " it was built from");
            }
            if (filter.mightContain(others[i])) {
                falsePositives++;
            }
        }
        // Absent probes are only worth measuring if most of them are rejected.
        double expected = BloomFilter.expectedFalsePositiveRate(keys, filter.numBits(), filter.numHashes());
        double observed = (double) falsePositives / keys;
        if (observed > 2 * expected + 0.01) {
            throw new IllegalStateException("bloom filter false-positive rate " + observed + " is far above the expected "
                    + expected);
        }
        int probes = Math.min(PROBE_KEYS, keys);
        present = new byte[probes][];
        absent = new byte[probes][];
        for (int i = 0; i < probes; i++) {
            // Spread over the whole built set; key order is random anyway (KeySpace).
            present[i] = built[(int) ((long) i * keys / probes)];
            absent[i] = others[i];
        }
        order = new ProbeSequence(probes, 5);
    }

    /** Probe for a key the filter was built from. */
    @Benchmark
    public boolean probePresent() {
        return filter.mightContain(present[order.next()]);
    }

    /** Probe for a key the filter was not built from. */
    @Benchmark
    public boolean probeAbsent() {
        return filter.mightContain(absent[order.next()]);
    }
}
