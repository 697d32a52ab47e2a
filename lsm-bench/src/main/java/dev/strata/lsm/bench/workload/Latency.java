package dev.strata.lsm.bench.workload;

import org.HdrHistogram.Histogram;

/**
 * Latency percentiles in microseconds, read from an HdrHistogram of nanoseconds.
 *
 * @param count requests measured
 */
public record Latency(long count, double p50, double p90, double p99, double p999, double max) {

    /** The percentiles of {@code h} (nanoseconds), in microseconds. */
    public static Latency of(Histogram h) {
        return new Latency(h.getTotalCount(), micros(h.getValueAtPercentile(50)), micros(h.getValueAtPercentile(90)),
                micros(h.getValueAtPercentile(99)), micros(h.getValueAtPercentile(99.9)), micros(h.getMaxValue()));
    }

    private static double micros(long nanos) {
        return nanos / 1e3;
    }
}
