package dev.strata.lsm.bench.workload;

import java.util.SplittableRandom;

/**
 * Zipf-distributed ranks in {@code [0, n)}, rank 0 the most popular, by the constant-time
 * method of Gray et al., "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD
 * 1994), exactly as YCSB's {@code ZipfianGenerator} implements it: the harmonic number
 * zeta(n, θ) is computed once and extended incrementally when n grows (so a "latest"
 * distribution over a growing key space stays cheap). Not thread safe.
 */
public final class ZipfianGenerator {
    private final double theta;
    private final double alpha;
    private final double zeta2;
    private final double half;
    private final SplittableRandom random;
    private long countForZeta;
    private double zetaN;
    private double eta;

    /**
     * @param theta skew in (0, 1); YCSB's default is 0.99
     * @param random the source of uniform draws
     */
    public ZipfianGenerator(double theta, SplittableRandom random) {
        if (!(theta > 0 && theta < 1)) {
            throw new IllegalArgumentException("zipfian theta must be in (0, 1), got " + theta);
        }
        this.theta = theta;
        this.alpha = 1.0 / (1.0 - theta);
        this.zeta2 = 1.0 + Math.pow(0.5, theta);
        this.half = Math.pow(0.5, theta);
        this.random = random;
    }

    /** Computes zeta(n) now, so that the first {@link #next} over n items is as cheap as the rest. */
    public void prepare(long n) {
        if (n > 1 && n != countForZeta) {
            resize(n);
        }
    }

    /** The next rank in {@code [0, n)}. */
    public long next(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("zipfian over an empty range");
        }
        if (n == 1) {
            return 0;
        }
        if (n != countForZeta) {
            resize(n);
        }
        double u = random.nextDouble();
        double uz = u * zetaN;
        if (uz < 1.0) {
            return 0;
        }
        if (uz < 1.0 + half) {
            return 1;
        }
        long rank = (long) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(rank, n - 1);
    }

    private void resize(long n) {
        long from = countForZeta;
        if (n < countForZeta) {
            // Shrinking is rare (a new workload on a smaller range): recompute from scratch.
            from = 0;
            zetaN = 0;
        }
        for (long i = from + 1; i <= n; i++) {
            zetaN += 1.0 / Math.pow(i, theta);
        }
        countForZeta = n;
        eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetaN);
    }
}
