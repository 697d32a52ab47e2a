package dev.strata.lsm.bench.measure;

import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.sstable.EntryType;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;

/**
 * CPU time per memtable put, by the thread's CPU clock rather than the wall clock, so that time
 * the scheduler keeps the thread off a shared, loaded machine's CPUs is not counted (what
 * {@code MemtablePutBench} measures by the wall clock). Puts of 16-byte random keys from a pool of
 * {@code keyPool} (1,048,576: every put a new key and a full search; 65,536: mostly overwrites)
 * and 100-byte values into 64 MiB memtables, a fresh one whenever the last is full; five
 * repetitions of 1,000,000 puts, each printed.
 *
 * <p>Run it as a source file against any build, so that two builds compare in one session:
 * {@code java -Xms2g -Xmx2g -cp lsm-bench.jar MemtablePutCpu.java OFFHEAP KEYPOOL}
 * ({@code OFFHEAP} true needs a build with {@code Memtable(long, boolean)}). Not thread safe; a
 * command-line tool.
 */
public final class MemtablePutCpu {
    private static final int PUTS = 1_000_000;
    private static final int REPETITIONS = 5;

    private MemtablePutCpu() {
    }

    /**
     * Prints the CPU nanoseconds per put of each repetition.
     *
     * @param args {@code OFFHEAP KEYPOOL}
     * @throws ReflectiveOperationException when off-heap memtables are asked of a build without them
     */
    public static void main(String[] args) throws ReflectiveOperationException {
        boolean offHeap = Boolean.parseBoolean(args[0]);
        int pool = Integer.parseInt(args[1]);
        SplittableRandom random = new SplittableRandom(6);
        byte[][] keys = new byte[pool][16];
        for (byte[] k : keys) {
            for (int i = 0; i < k.length; i++) {
                k[i] = (byte) random.nextInt(256);
            }
        }
        byte[] value = new byte[100];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        StringBuilder out = new StringBuilder();
        long seqno = 0;
        for (int rep = 0; rep < REPETITIONS; rep++) {
            Memtable memtable = memtable(1, offHeap);
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0, next = 0; i < PUTS; i++) {
                if (memtable.approximateBytes() >= 64L << 20) {
                    memtable = memtable(memtable.walSegment() + 1, offHeap);
                }
                memtable.add(keys[next], ++seqno, EntryType.PUT, value);
                if (++next == pool) {
                    next = 0;
                }
            }
            long nanos = threads.getCurrentThreadCpuTime() - start;
            out.append(String.format(" %.0f", (double) nanos / PUTS));
        }
        System.out.println("offHeap=" + offHeap + " keyPool=" + pool + " CPU ns/put by repetition:" + out);
    }

    private static Memtable memtable(long segment, boolean offHeap) throws ReflectiveOperationException {
        // Reflection, so that the file also runs against builds from before the off-heap option.
        return offHeap ? Memtable.class.getConstructor(long.class, boolean.class).newInstance(segment, true)
                : new Memtable(segment);
    }
}
