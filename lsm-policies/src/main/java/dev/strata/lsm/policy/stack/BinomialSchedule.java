package dev.strata.lsm.policy.stack;

/**
 * The static schedules of Mathieu et al. (MinLatency and Binomial): the number of
 * components left after flush t is a function of t and k alone.
 *
 * <p>B(m, k, 0) = 0 and, for t > 0, B(m, k, t) = B(m-1, k, t) if t < C(m+k-1, k), else
 * 1 + B(m, k-1, t - C(m+k-1, k)), where C is the binomial coefficient.
 */
final class BinomialSchedule {
    private static final int MAX_N = 200;
    private static final long[][] BINOMIAL = new long[MAX_N + 1][];

    static {
        for (int n = 0; n <= MAX_N; n++) {
            BINOMIAL[n] = new long[n + 1];
            BINOMIAL[n][0] = 1;
            BINOMIAL[n][n] = 1;
            for (int r = 1; r < n; r++) {
                long v = BINOMIAL[n - 1][r - 1] + BINOMIAL[n - 1][r];
                BINOMIAL[n][r] = v < 0 || v > Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : v;
            }
        }
    }

    private BinomialSchedule() {
    }

    /** C(n, r), saturating at Long.MAX_VALUE / 4; 0 when r is outside [0, n]. */
    static long choose(int n, int r) {
        if (r < 0 || n < 0 || r > n) {
            return 0;
        }
        if (n > MAX_N) {
            throw new IllegalArgumentException("binomial coefficient C(" + n + ", " + r + ") is out of range");
        }
        return BINOMIAL[n][r];
    }

    /** B(m, k, t). */
    static int b(int m, int k, long t) {
        int result = 0;
        while (t > 0) {
            if (k <= 0 || m < 0) {
                throw new IllegalArgumentException("B is undefined here: m=" + m + " k=" + k + " t=" + t);
            }
            long c = choose(m + k - 1, k);
            if (t < c) {
                m--;
            } else {
                result++;
                t -= c;
                k--;
            }
        }
        return result;
    }

    /** MinLatency: i = B(m', k, t) with m' = min{m : C(m+k, m) > t}. */
    static int minLatency(int k, long t) {
        int m = 0;
        while (choose(m + k, m) <= t) {
            m++;
        }
        return b(m, k, t);
    }

    /** T_k(m) = sum over i = 1..m of C(i + min(i, k) - 1, i). */
    static long binomialT(int k, int m) {
        long sum = 0;
        for (int i = 1; i <= m; i++) {
            sum += choose(i + Math.min(i, k) - 1, i);
            if (sum > Long.MAX_VALUE / 4) {
                return Long.MAX_VALUE / 4;
            }
        }
        return sum;
    }

    /** Binomial: i = 1 + B(m', min(m', k) - 1, t - T_k(m'-1) - 1) with m' = min{m : T_k(m) >= t}. */
    static int binomial(int k, long t) {
        int m = 1;
        while (binomialT(k, m) < t) {
            m++;
        }
        return 1 + b(m, Math.min(m, k) - 1, t - binomialT(k, m - 1) - 1);
    }
}
