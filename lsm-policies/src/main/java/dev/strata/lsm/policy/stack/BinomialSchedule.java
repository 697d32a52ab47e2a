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
    /** Pascal's triangle for n below this, r up to {@link #TABLE_R}: the schedules look up small coefficients millions of times. */
    private static final int TABLE_N = 1024;
    private static final int TABLE_R = 64;
    private static final long[][] TABLE = pascal();

    private BinomialSchedule() {
    }

    /** C(n, r) for n < TABLE_N and r <= min(n, TABLE_R), by Pascal's rule with saturating sums. */
    private static long[][] pascal() {
        long[][] t = new long[TABLE_N][];
        for (int n = 0; n < TABLE_N; n++) {
            int width = Math.min(n, TABLE_R);
            t[n] = new long[width + 1];
            t[n][0] = 1;
            for (int r = 1; r <= width; r++) {
                long left = t[n - 1][r - 1];
                long right = r <= Math.min(n - 1, TABLE_R) ? t[n - 1][r] : 0;
                t[n][r] = Math.min(SATURATED, left + right); // both at most SATURATED: no overflow
            }
        }
        return t;
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
        if (n < TABLE_N && small <= TABLE_R) {
            return TABLE[n][small];
        }
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

    /**
     * B(m, k, t). Where the recurrence would step m down one at a time while t < C(m+k-1, k),
     * it jumps to the largest m' < m with C(m'+k-1, k) <= t (binary search: C(m+k-1, k) grows
     * with m, and is 0 at m = 0), so the cost is O(k log m) coefficients rather than O(m).
     */
    static int b(int m, int k, long t) {
        int result = 0;
        while (t > 0) {
            if (k <= 0 || m < 0) {
                throw new IllegalArgumentException("B is undefined here: m=" + m + " k=" + k + " t=" + t);
            }
            long c = choose(m + k - 1, k);
            if (t < c) {
                int lo = 0;
                int hi = m - 1;
                while (lo < hi) {
                    int mid = (lo + hi + 1) >>> 1;
                    if (choose(mid + k - 1, k) <= t) {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                m = lo;
                c = choose(m + k - 1, k);
            }
            result++;
            t -= c;
            k--;
        }
        return result;
    }

    /** The least m >= from with {@code test(m)}, for a test that is monotone in m and true somewhere. */
    private static int least(int from, java.util.function.IntPredicate test) {
        int hi = Math.max(from, 1);
        while (!test.test(hi)) {
            if (hi > Integer.MAX_VALUE / 4) {
                throw new IllegalArgumentException("schedule position out of range");
            }
            hi *= 2;
        }
        int lo = from;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (test.test(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** MinLatency: i = B(m', k, t) with m' = min{m : C(m+k, m) > t}. */
    static int minLatency(int k, long t) {
        if (k == 1 && t > 0) {
            return 1; // one component: every flush merges with it (B(t, 1, t) = 1), for any t
        }
        int m = least(0, x -> choose(x + k, x) > t);
        return b(m, k, t);
    }

    /**
     * T_k(m) = sum over i = 1..m of C(i + min(i, k) - 1, i), saturating. The terms with
     * i >= k are C(i + k - 1, k - 1), whose sum over i = 0..m is C(m + k, k) (hockey stick),
     * so T_k(m) = T_k(k - 1) + C(m + k, k) - C(2k - 1, k) for m >= k.
     */
    static long total(int k, int m) {
        long sum = 0;
        for (int i = 1; i <= Math.min(m, k - 1); i++) {
            sum = Math.min(SATURATED, sum + choose(2 * i - 1, i));
        }
        if (m >= k) {
            long all = choose(m + k, k);
            if (all >= SATURATED) {
                return SATURATED;
            }
            sum = Math.min(SATURATED, sum + all - choose(2 * k - 1, k));
        }
        return sum;
    }

    /** Binomial: i = 1 + B(m', min(m', k) - 1, t - T_k(m'-1) - 1) with m' = min{m : T_k(m) >= t}. */
    static int binomial(int k, long t) {
        if (k == 1 && t > 0) {
            return 1;
        }
        int m = least(1, x -> total(k, x) >= t);
        return 1 + b(m, Math.min(m, k) - 1, t - total(k, m - 1) - 1);
    }
}
