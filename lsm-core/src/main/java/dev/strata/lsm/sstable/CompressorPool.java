package dev.strata.lsm.sstable;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The threads that compress packed tables' pages off their writers' threads
 * ({@code parallelCompression} on or auto; {@link PageSink}), shared by every sink of the JVM,
 * and the measure {@link dev.strata.lsm.ParallelCompression#AUTO auto} decides by: whether
 * this process has left a core idle lately.
 */
final class CompressorPool {
    /** A build hands its pages to the pool while at least this many cores were idle lately. */
    static final double IDLE_CORES_TO_OFFLOAD = 0.75;
    /** The window the idle cores are measured over: a decision holds for at least this long. */
    static final long SAMPLE_NANOS = 20_000_000L;

    private static final List<Thread> THREADS = new CopyOnWriteArrayList<>();
    /** Daemon threads, one per core up to 8; codecs are thread safe. */
    static final ExecutorService EXECUTOR = Executors.newFixedThreadPool(
            Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors())), r -> {
                Thread t = new Thread(r, "strata-page-compressor");
                t.setDaemon(true);
                THREADS.add(t);
                return t;
            });

    private static final com.sun.management.OperatingSystemMXBean OS = operatingSystem();
    private static final ThreadMXBean THREAD_CPU = ManagementFactory.getThreadMXBean();
    private static final AtomicBoolean SAMPLING = new AtomicBoolean();
    private static volatile long lastWall = System.nanoTime();
    private static volatile long lastProcessCpu = processCpu();
    private static volatile long lastPoolCpu = poolCpu();
    private static volatile boolean spare;

    private CompressorPool() {
    }

    /**
     * Whether this process left at least {@value #IDLE_CORES_TO_OFFLOAD} of a core idle over
     * the last window ({@value #SAMPLE_NANOS} ns or more), not counting the compressors' own
     * CPU; false where the JVM cannot tell its process's CPU time. Cheap: a clock read, and a
     * new sample by one caller once a window.
     */
    static boolean spareCore() {
        long now = System.nanoTime();
        if (now - lastWall >= SAMPLE_NANOS && SAMPLING.compareAndSet(false, true)) {
            try {
                long process = processCpu();
                long pool = poolCpu();
                spare = process >= 0 && spareCore(Runtime.getRuntime().availableProcessors(),
                        process - lastProcessCpu, pool - lastPoolCpu, now - lastWall);
                lastProcessCpu = process;
                lastPoolCpu = pool;
                lastWall = now;
            } finally {
                SAMPLING.set(false);
            }
        }
        return spare;
    }

    /**
     * The decision over one window: {@code processors} cores, of which the process used
     * {@code processCpuNanos} in {@code wallNanos}, {@code poolCpuNanos} of them on the
     * compressors (not counted: a build handing pages to them must not count their work as
     * the load that makes it stop).
     */
    static boolean spareCore(int processors, long processCpuNanos, long poolCpuNanos, long wallNanos) {
        if (wallNanos <= 0 || processors < 2) {
            return false;
        }
        double busy = Math.max(0, processCpuNanos - Math.max(0, poolCpuNanos)) / (double) wallNanos;
        return processors - busy >= IDLE_CORES_TO_OFFLOAD;
    }

    private static com.sun.management.OperatingSystemMXBean operatingSystem() {
        try {
            return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                    ? os : null;
        } catch (LinkageError e) {
            return null; // a JVM without jdk.management: auto compresses on the building thread
        }
    }

    /** The process's CPU time in nanoseconds, or -1 where the JVM cannot tell. */
    private static long processCpu() {
        return OS == null ? -1 : OS.getProcessCpuTime();
    }

    /** The compressor threads' CPU time in nanoseconds (0 where the JVM cannot tell). */
    private static long poolCpu() {
        if (!THREAD_CPU.isThreadCpuTimeSupported() || !THREAD_CPU.isThreadCpuTimeEnabled()) {
            return 0;
        }
        long sum = 0;
        for (Thread t : THREADS) {
            long cpu = THREAD_CPU.getThreadCpuTime(t.getId());
            if (cpu > 0) {
                sum += cpu;
            }
        }
        return sum;
    }
}
