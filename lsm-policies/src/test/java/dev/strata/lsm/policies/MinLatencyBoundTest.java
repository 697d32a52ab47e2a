package dev.strata.lsm.policies;

import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import dev.strata.lsm.testkit.SlowTest;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mathieu et al.'s guarantee: after n = C(m+k, k) - 1 uniform flushes, MinLatency's write
 * amplification (model semantics) is at most m, and Binomial's too once n is past ~4^k.
 */
class MinLatencyBoundTest {
    private static long choose(int n, int r) {
        long c = 1;
        for (int i = 1; i <= r; i++) {
            c = c * (n - r + i) / i;
        }
        return c;
    }

    /**
     * Every k, m with n up to 10,000 flushes (85 of the 96 cases; the sum of their n is a seventh
     * of all of them): the fast lane.
     */
    @Test
    void writeAmplificationIsAtMostMAfterTheCompleteSchedule() {
        checkSchedulesUpTo(10_000);
    }

    /** Every k, m with n up to 200,000 flushes (all 96 cases): the slow lane. */
    @Test
    @SlowTest
    void writeAmplificationIsAtMostMAfterTheCompleteScheduleUpTo200000Flushes() {
        checkSchedulesUpTo(200_000);
    }

    private static void checkSchedulesUpTo(long maxFlushes) {
        int checked = 0;
        for (int k = 1; k <= 8; k++) {
            for (int m = 1; m <= 12; m++) {
                long n = choose(m + k, k) - 1;
                if (n < 1 || n > maxFlushes) {
                    continue;
                }
                SimulationResult r = Simulator.of("minlatency", Map.of("k", String.valueOf(k)), Semantics.MODEL,
                        FlushLengths.parse("uniform", 0)).run(n, new long[0]);
                assertTrue(r.writeAmplification() <= m + 1e-9, "k=" + k + " m=" + m + " n=" + n + ": WA "
                        + r.writeAmplification());
                assertTrue(r.maxComponentCount() <= k, "k=" + k + " bound");
                checked++;
            }
        }
        assertTrue(checked > 30, "cases checked: " + checked);
    }
}
