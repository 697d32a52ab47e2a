package dev.strata.lsm.policy.stack;

/**
 * The static schedules of Mathieu et al. (MinLatency and Binomial): the number of
 * components left after flush t is a function of t and k alone.
 *
 * <p>B(m, k, 0) = 0 and, for t > 0, B(m, k, t) = B(m-1, k, t) if t < C(m+k-1, k), else
 * 1 + B(m, k-1, t - C(m+k-1, k)), where C is the binomial coefficient.
 */
final class BinomialSchedule {
    private static final long SATURATED = Long.MAX_VALUE / 4;

    private BinomialSchedule() {
    }

    /**
     * C(n, r), saturating at Long.MAX_VALUE / 4; 0 when r is outside [0, n]. Multiplicative:
     * after step i the partial value is C(n - r' + i, i), an integer, and the partial values
     * only grow, so the first one past the limit saturates.
     */
    static long choose(int n, int r) {
        if (r < 0 || n < 0 || r > n) {
            return 0;
        }
        int small = Math.min(r, n - r);
        long c = 1;
        for (int i = 1; i <= small; i++) {
            // c * factor / i is an integer: divide first, by g = gcd(c, i), so nothing overflows.
            long factor = n - small + i;
            long g = gcd(c, i);
            long multiplier = factor / (i / g);
            long base = c / g;
            if (base > SATURATED / multiplier) {
                return SATURATED;
            }
            c = base * multiplier;
        }
        return c;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
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

    /**
     * Binomial: i = 1 + B(m', min(m', k) - 1, t - T_k(m'-1) - 1) with m' = min{m : T_k(m) >= t},
     * T_k(m) = sum over i = 1..m of C(i + min(i, k) - 1, i), summed as m grows.
     */
    static int binomial(int k, long t) {
        int m = 1;
        long before = 0;
        long upTo = choose(Math.min(1, k), 1);
        while (upTo < t) {
            m++;
            before = upTo;
            upTo = Math.min(SATURATED, upTo + choose(m + Math.min(m, k) - 1, m));
        }
        return 1 + b(m, Math.min(m, k) - 1, t - before - 1);
    }
}
