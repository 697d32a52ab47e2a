package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomPermutationTest {

    @Test
    void isABijectionOfTheRange() {
        for (long n : new long[] {1, 2, 3, 1000, 1023, 1024, 1025, 65_537}) {
            RandomPermutation p = new RandomPermutation(n, 99);
            BitSet seen = new BitSet();
            for (long i = 0; i < n; i++) {
                long x = p.apply(i);
                assertTrue(x >= 0 && x < n, "image " + x + " outside [0, " + n + ")");
                assertFalse(seen.get((int) x), "image " + x + " twice for n=" + n);
                seen.set((int) x);
            }
            assertEquals(n, seen.cardinality());
        }
    }

    @Test
    void shufflesAndDependsOnTheSeed() {
        RandomPermutation a = new RandomPermutation(10_000, 1);
        RandomPermutation b = new RandomPermutation(10_000, 2);
        int ascending = 0;
        int same = 0;
        for (long i = 1; i < 10_000; i++) {
            if (a.apply(i) > a.apply(i - 1)) {
                ascending++;
            }
            if (a.apply(i) == b.apply(i)) {
                same++;
            }
        }
        // A random order rises about half the time; a near-identity map would rise always.
        assertTrue(ascending > 4000 && ascending < 6000, "rises " + ascending);
        assertTrue(same < 100, "seeds 1 and 2 agree on " + same + " positions");
    }
}
