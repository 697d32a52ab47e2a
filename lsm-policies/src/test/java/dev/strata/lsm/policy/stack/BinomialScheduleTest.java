package dev.strata.lsm.policy.stack;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The static schedules hold for stores of any age: with a small k the flush counter soon
 * needs binomial coefficients C(n, r) with n far above any fixed table (found by
 * {@code strata-bench torture}: "binomial coefficient C(201, 199) is out of range" after
 * 200 flushes with k = 1 or 2, after which the policy failed on every flush).
 */
class BinomialScheduleTest {

    @Test
    void theLookupTableAndTheComputedCoefficientsAgreeWithExactArithmetic() {
        // Inside the table (n < 1024, r <= 64) and across its edges into the computed range.
        java.math.BigInteger cap = java.math.BigInteger.valueOf(Long.MAX_VALUE / 4);
        for (int n = 0; n < 1100; n += (n < 80 ? 1 : 7)) {
            java.math.BigInteger c = java.math.BigInteger.ONE;
            for (int r = 0; r <= Math.min(n, 80); r++) {
                if (r > 0) {
                    c = c.multiply(java.math.BigInteger.valueOf(n - r + 1)).divide(java.math.BigInteger.valueOf(r));
                }
                long expected = c.compareTo(cap) >= 0 ? Long.MAX_VALUE / 4 : c.longValueExact();
                assertEquals(expected, BinomialSchedule.choose(n, r), "C(" + n + ", " + r + ")");
            }
        }
    }

    @Test
    void coefficientsAreExactWhereTheyFitAndSaturateBeyond() {
        assertEquals(1, BinomialSchedule.choose(500, 500));
        assertEquals(500, BinomialSchedule.choose(500, 499));
        assertEquals(124_750, BinomialSchedule.choose(500, 2));
        assertEquals(2_118_760, BinomialSchedule.choose(50, 5));
        assertEquals(Long.MAX_VALUE / 4, BinomialSchedule.choose(1000, 500));
        assertEquals(0, BinomialSchedule.choose(10, 11));
        // Pascal's rule wherever the values are exact.
        for (int n = 1; n < 70; n++) {
            for (int r = 1; r < n; r++) {
                long sum = BinomialSchedule.choose(n - 1, r - 1) + BinomialSchedule.choose(n - 1, r);
                if (sum < Long.MAX_VALUE / 4) {
                    assertEquals(sum, BinomialSchedule.choose(n, r), "C(" + n + ", " + r + ")");
                }
            }
        }
    }

    @Test
    void schedulesStayWithinKForLongLivedStores() {
        for (int k = 1; k <= 3; k++) {
            for (long t = 1; t <= 20_000; t += (t < 500 ? 1 : 97)) {
                int minLatency = BinomialSchedule.minLatency(k, t);
                int binomial = BinomialSchedule.binomial(k, t);
                assertTrue(minLatency >= 0 && minLatency <= k, "minLatency k=" + k + " t=" + t + ": " + minLatency);
                assertTrue(binomial >= 1 && binomial <= k, "binomial k=" + k + " t=" + t + ": " + binomial);
            }
        }
    }

    /** The recurrences exactly as the paper states them, one step at a time (slow, for reference). */
    private static int naiveB(int m, int k, long t) {
        if (t == 0) {
            return 0;
        }
        long c = BinomialSchedule.choose(m + k - 1, k);
        return t < c ? naiveB(m - 1, k, t) : 1 + naiveB(m, k - 1, t - c);
    }

    private static int naiveMinLatency(int k, long t) {
        int m = 0;
        while (BinomialSchedule.choose(m + k, m) <= t) {
            m++;
        }
        return naiveB(m, k, t);
    }

    private static int naiveBinomial(int k, long t) {
        int m = 1;
        long before = 0;
        long upTo = BinomialSchedule.choose(Math.min(1, k), 1);
        while (upTo < t) {
            m++;
            before = upTo;
            upTo += BinomialSchedule.choose(m + Math.min(m, k) - 1, m);
        }
        return 1 + naiveB(m, Math.min(m, k) - 1, t - before - 1);
    }

    @Test
    void fastScheduleEqualsThePapersRecurrence() {
        for (int k = 1; k <= 6; k++) {
            long limit = k == 1 ? 3000 : 20_000;
            for (long t = 1; t <= limit; t++) {
                assertEquals(naiveMinLatency(k, t), BinomialSchedule.minLatency(k, t), "minLatency k=" + k + " t=" + t);
                assertEquals(naiveBinomial(k, t), BinomialSchedule.binomial(k, t), "binomial k=" + k + " t=" + t);
            }
        }
    }

    /**
     * Around the flush counts where a table capped at n = 200 ran out (k = 1 after ~200
     * flushes, k = 2 after ~20,000, k = 3 after ~1.3M) and far beyond: the schedule stays in
     * range, and, being eager, never leaves more than one component more than the flush before.
     */
    @Test
    void schedulesWorkForAnyFlushCountAtSmallK() {
        long[][] around = {{200, 1L << 40}, {20_100, 2_000_000_000L}, {1_333_500, 3_000_000_000_000L}};
        for (int k = 1; k <= 3; k++) {
            for (long centre : around[k - 1]) {
                long from = Math.max(2, centre - 2000);
                int prevMin = BinomialSchedule.minLatency(k, from - 1);
                int prevBin = BinomialSchedule.binomial(k, from - 1);
                for (long t = from; t <= centre + 2000; t++) {
                    int min = BinomialSchedule.minLatency(k, t);
                    int bin = BinomialSchedule.binomial(k, t);
                    assertTrue(min >= 0 && min <= k && min <= prevMin + 1, "minLatency k=" + k + " t=" + t + ": " + min);
                    assertTrue(bin >= 1 && bin <= k && bin <= prevBin + 1, "binomial k=" + k + " t=" + t + ": " + bin);
                    prevMin = min;
                    prevBin = bin;
                }
            }
        }
    }
}
