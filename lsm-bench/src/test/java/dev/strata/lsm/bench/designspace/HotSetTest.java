package dev.strata.lsm.bench.designspace;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HotSetTest {

    @Test
    void updatesStayInATenthOfTheKeysThatMovesEveryFifthOfThePhase() {
        long records = 100_000;
        long ops = 50_000;
        DesignSpaceRun.HotSet hot = new DesignSpaceRun.HotSet(records, ops, new SplittableRandom(3));
        long[] lo = new long[5];
        long[] hi = new long[5];
        Map<Long, Integer> counts = new HashMap<>();
        for (int f = 0; f < 5; f++) {
            lo[f] = Long.MAX_VALUE;
            hi[f] = Long.MIN_VALUE;
        }
        for (long i = 0; i < ops; i++) {
            long r = hot.next(i);
            assertTrue(r >= 0 && r < records, "an existing key: " + r);
            int fifth = (int) (i / (ops / 5));
            lo[fifth] = Math.min(lo[fifth], r);
            hi[fifth] = Math.max(hi[fifth], r);
            if (fifth == 0) {
                counts.merge(r, 1, Integer::sum);
            }
        }
        int moved = 0;
        for (int f = 0; f < 5; f++) {
            assertTrue(hi[f] - lo[f] < records / 10, "fifth " + f + " spans " + (hi[f] - lo[f]));
            if (f > 0 && lo[f] != lo[f - 1]) {
                moved++;
            }
        }
        assertTrue(moved >= 3, "the hot set moves: " + java.util.Arrays.toString(lo));
        // Skewed: the most popular key of the first fifth takes far more than a uniform share (1 in 10,000).
        int top = counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(top > 100, "hottest key updated " + top + " times of 10,000");
        assertEquals(ops / 5, counts.values().stream().mapToInt(Integer::intValue).sum());
    }
}
