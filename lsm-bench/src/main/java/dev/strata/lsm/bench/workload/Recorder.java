package dev.strata.lsm.bench.workload;

import org.HdrHistogram.Histogram;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker thread's measurements: a latency histogram (nanoseconds, 3 significant digits,
 * auto-resizing) per operation, and counters the monitor thread reads while the worker
 * runs. Only the owning worker writes; counters are published with release stores so the
 * monitor's reads are cheap for the worker. Nothing is kept per operation, so memory does
 * not grow with the run.
 */
final class Recorder {
    static final int SIGNIFICANT_DIGITS = 3;

    private final Histogram[] histograms = new Histogram[Operation.values().length];
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong userBytesWritten = new AtomicLong();
    private final boolean countsTowardThroughput;
    private long misses;

    /** @param countsTowardThroughput false for readwhilewriting's writer, whose puts are background load */
    Recorder(boolean countsTowardThroughput) {
        this.countsTowardThroughput = countsTowardThroughput;
    }

    /** Records one completed request of {@code nanos} that wrote {@code bytesWritten} user bytes. */
    void record(Operation op, long nanos, long bytesWritten) {
        Histogram h = histograms[op.ordinal()];
        if (h == null) {
            h = new Histogram(SIGNIFICANT_DIGITS);
            histograms[op.ordinal()] = h;
        }
        h.recordValue(Math.max(1, nanos));
        ops.setRelease(ops.getPlain() + 1);
        if (bytesWritten != 0) {
            userBytesWritten.setRelease(userBytesWritten.getPlain() + bytesWritten);
        }
    }

    /**
     * Records one latency sample of {@code nanos} for a step that completed {@code records}
     * records and wrote {@code bytesWritten} user bytes (the ingest workload: one sample per
     * file written and one for the ingest call, which completes none by itself).
     */
    void recordBatch(Operation op, long nanos, long records, long bytesWritten) {
        Histogram h = histograms[op.ordinal()];
        if (h == null) {
            h = new Histogram(SIGNIFICANT_DIGITS);
            histograms[op.ordinal()] = h;
        }
        h.recordValue(Math.max(1, nanos));
        ops.setRelease(ops.getPlain() + records);
        if (bytesWritten != 0) {
            userBytesWritten.setRelease(userBytesWritten.getPlain() + bytesWritten);
        }
    }

    /** Counts a read that found no value. */
    void miss() {
        misses++;
    }

    boolean countsTowardThroughput() {
        return countsTowardThroughput;
    }

    /** Requests completed so far (safe from any thread). */
    long ops() {
        return ops.getAcquire();
    }

    /** User bytes written so far (safe from any thread). */
    long userBytesWritten() {
        return userBytesWritten.getAcquire();
    }

    /** Reads that found nothing; read after the worker finished. */
    long misses() {
        return misses;
    }

    /** Adds this recorder's histograms into {@code into}; call after the worker finished. */
    void mergeInto(Map<Operation, Histogram> into) {
        for (Operation op : Operation.values()) {
            Histogram h = histograms[op.ordinal()];
            if (h != null) {
                into.computeIfAbsent(op, o -> new Histogram(SIGNIFICANT_DIGITS)).add(h);
            }
        }
    }

    static Map<Operation, Histogram> emptyByOperation() {
        return new EnumMap<>(Operation.class);
    }
}
