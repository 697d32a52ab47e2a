package dev.strata.lsm.bench.workload;

import java.util.ArrayList;
import java.util.List;

/**
 * Cumulative counters of one engine run sampled about once a second, for the charts:
 * throughput per one-second bucket is the difference of consecutive {@code ops}, write
 * amplification over time the ratio of {@code processBytes} to {@code userBytes}. A few
 * dozen bytes per second of run, whatever the operation count. Thread safe.
 */
public final class Timeline {

    /**
     * @param seconds since the engine was opened
     * @param ops requests completed since the engine was opened
     * @param userBytes key and value bytes written since the engine was opened
     * @param processBytes bytes the process wrote since the engine was opened (-1 if unknown)
     * @param workload the workload running, or settling, at the sample
     */
    public record Sample(double seconds, long ops, long userBytes, long processBytes, String workload) {
    }

    private final List<Sample> samples = new ArrayList<>();

    synchronized void add(Sample s) {
        samples.add(s);
    }

    /** The samples in time order. */
    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** Operations per second in each interval between samples, stamped with the interval's end. */
    public List<double[]> throughput() {
        List<Sample> s = samples();
        List<double[]> out = new ArrayList<>();
        for (int i = 1; i < s.size(); i++) {
            double dt = s.get(i).seconds() - s.get(i - 1).seconds();
            if (dt > 0) {
                out.add(new double[] {s.get(i).seconds(), (s.get(i).ops() - s.get(i - 1).ops()) / dt});
            }
        }
        return out;
    }

    /** Cumulative write amplification at each sample once user bytes have been written. */
    public List<double[]> writeAmplification() {
        List<double[]> out = new ArrayList<>();
        for (Sample x : samples()) {
            if (x.userBytes() > 0 && x.processBytes() >= 0) {
                out.add(new double[] {x.seconds(), (double) x.processBytes() / x.userBytes()});
            }
        }
        return out;
    }
}
