package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyDistributionTest {
    private static final long SEED = 42;
    private static final int N = 1000;
    private static final int DRAWS = 200_000;

    private static long[] histogram(KeyDistribution d, long n) {
        KeyChooser c = d.chooser(new SplittableRandom(SEED), 0.99, 0, 1, n);
        long[] counts = new long[(int) n];
        for (int i = 0; i < DRAWS; i++) {
            long r = c.next(n);
            assertTrue(r >= 0 && r < n, d + " drew " + r + " outside [0, " + n + ")");
            counts[(int) r]++;
        }
        return counts;
    }

    private static long max(long[] counts) {
        long m = 0;
        for (long c : counts) {
            m = Math.max(m, c);
        }
        return m;
    }

    @Test
    void zipfianHitsItsMostPopularKeyFarMoreOftenThanUniform() {
        long expected = DRAWS / N;
        long uniformMax = max(histogram(KeyDistribution.UNIFORM, N));
        long zipfMax = max(histogram(KeyDistribution.ZIPFIAN, N));
        // Uniform: the busiest of 1,000 keys sees about 200 ± a few sigma draws.
        assertTrue(uniformMax < 2 * expected, "uniform max " + uniformMax);
        // Zipf(0.99) over 1,000 items gives rank 0 about 1/zeta = 13% of the draws.
        assertTrue(zipfMax > 20 * expected, "zipfian max " + zipfMax + " vs uniform expectation " + expected);
    }

    @Test
    void zipfianRanksFollowGraysFormula() {
        ZipfianGenerator z = new ZipfianGenerator(0.99, new SplittableRandom(SEED));
        long[] counts = new long[N];
        for (int i = 0; i < DRAWS; i++) {
            counts[(int) z.next(N)]++;
        }
        double zeta = 0;
        for (int i = 1; i <= N; i++) {
            zeta += 1 / Math.pow(i, 0.99);
        }
        double p0 = (double) counts[0] / DRAWS;
        assertEquals(1 / zeta, p0, 0.1 / zeta, "frequency of rank 0");
        // P(rank 0) / P(rank 1) = 2^0.99.
        assertEquals(Math.pow(2, 0.99), (double) counts[0] / counts[1], 0.15);
    }

    @Test
    void latestFavoursTheNewestRecords() {
        long[] counts = histogram(KeyDistribution.LATEST, N);
        long newestTenth = 0;
        for (int r = N - N / 10; r < N; r++) {
            newestTenth += counts[r];
        }
        assertEquals(max(counts), counts[N - 1], "the newest record is the most popular");
        assertTrue(newestTenth > DRAWS / 2, "newest 10% got " + newestTenth + " of " + DRAWS);
    }

    @Test
    void latestFollowsTheKeySpaceAsItGrows() {
        KeyChooser c = KeyDistribution.LATEST.chooser(new SplittableRandom(SEED), 0.99, 0, 1, N);
        long atNewest = 0;
        for (int i = 0; i < 10_000; i++) {
            long n = N + i;
            long r = c.next(n);
            assertTrue(r < n);
            if (r == n - 1) {
                atNewest++;
            }
        }
        assertTrue(atNewest > 1000, "the record just inserted was drawn " + atNewest + " times in 10,000");
    }

    @Test
    void sequentialIsInOrderAndWraps() {
        KeyChooser c = KeyDistribution.SEQUENTIAL.chooser(new SplittableRandom(SEED), 0.99, 0, 1, 10);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 10; i++) {
                assertEquals(i, c.next(10));
            }
        }
        KeyChooser second = KeyDistribution.SEQUENTIAL.chooser(new SplittableRandom(SEED), 0.99, 1, 2, 10);
        assertEquals(5, second.next(10), "thread 1 of 2 starts half way");
        assertEquals(6, second.next(10));
    }

    @Test
    void sameSeedSameSequence() {
        KeyChooser a = KeyDistribution.ZIPFIAN.chooser(new SplittableRandom(7), 0.9, 0, 1, N);
        KeyChooser b = KeyDistribution.ZIPFIAN.chooser(new SplittableRandom(7), 0.9, 0, 1, N);
        for (int i = 0; i < 1000; i++) {
            assertEquals(a.next(N), b.next(N));
        }
    }

    @Test
    void unknownNamesAreRejectedWithTheAllowedOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyDistribution.parse("pareto"));
        assertTrue(e.getMessage().contains("pareto") && e.getMessage().contains("zipfian"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(1.0, new SplittableRandom(1)));
    }
}
