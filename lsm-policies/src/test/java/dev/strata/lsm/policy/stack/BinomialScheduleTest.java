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
}
