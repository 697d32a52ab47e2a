package dev.strata.lsm.policy.stack;

import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AsterixDB's flow control, with merges that take time ({@link TimedStack}): 100,000
 * flushes arrive faster than one merge thread can keep up with.
 */
class FlowControlTest {
    /** Simulated flushes: 25,000 in the fast lane, 250,000 in the slow lane ({@link FlowControlSlowTest}). */
    private static final long FLUSHES = TestScale.scaled(25_000L);
    /**
     * Small components (at most max-mergable-component-size = 256 flushes) prefix may hold
     * with tolerance 5: writers go on only while the run it would merge has fewer than 5; older
     * than that run can sit a chain of starts that fail the 1.2 ratio, each more than 2.2 times
     * the one after, so at most ceil(log_2.2(256)) + 1 = 9 of them; the one running merge
     * holds at most as many again. Without flow control the count grows with the flushes
     * (26,000 small components at bandwidth 1.5 before the fix).
     */
    private static final int SMALL_BOUND = 2 * (5 + 9);

    @Test
    void prefixKeepsTheCountOfSmallComponentsBoundedWhenMergesLag() {
        for (double bandwidth : new double[] {1.5, 3, 50}) {
            TimedStack.Result r = new TimedStack("prefix", Map.of("max-mergable-component-size", "256",
                    "max-tolerance-component-count", "5"), 1, bandwidth, 1, 256).run(FLUSHES);
            System.out.printf("prefix bandwidth %.1f: max %d components, max %d small, end time %.0f%n",
                    bandwidth, r.maxComponents(), r.maxSmallComponents(), r.endTime());
            assertEquals(FLUSHES, r.flushes());
            assertTrue(r.maxSmallComponents() <= SMALL_BOUND, "prefix kept " + r.maxSmallComponents()
                    + " components of at most 256 bytes, bound " + SMALL_BOUND + ": " + r);
        }
    }

    @Test
    void concurrentHoldsItsMaximumCountWhenMergesLag() {
        for (double bandwidth : new double[] {1.5, 3, 50}) {
            TimedStack.Result r = new TimedStack("concurrent", Map.of(), 1, bandwidth, 1, Long.MAX_VALUE).run(FLUSHES);
            System.out.printf("concurrent bandwidth %.1f: max %d components, end time %.0f%n",
                    bandwidth, r.maxComponents(), r.endTime());
            assertTrue(r.maxComponents() <= 30, "max-component-count 30 exceeded: " + r);
        }
    }

    @Test
    void concurrentNeverLeavesWritersWaitingOnNothing() {
        TimedStack.Result r = assertDoesNotThrow(() -> new TimedStack("concurrent",
                Map.of("min-merge-count", "5", "max-component-count", "4"), 1, 3, 1, Long.MAX_VALUE).run(FLUSHES));
        assertTrue(r.maxComponents() <= 4, r.toString());
    }
}
