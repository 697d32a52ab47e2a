package dev.strata.lsm.cache;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SecondMissAdmissionTest {

    @Test
    void aPageIsAdmittedOnItsSecondMissNotItsFirst() {
        SecondMissAdmission a = new SecondMissAdmission(1000);
        assertFalse(a.admit(42));
        assertTrue(a.admit(42));
        assertTrue(a.admit(42), "and on every miss after that, until the window ends");
        assertFalse(a.admit(43));
    }

    @Test
    void theWindowIsFourCapacitiesOfFirstMissesAndSixteenBitsEach() {
        SecondMissAdmission a = new SecondMissAdmission(32_768); // 128 MiB of 4 KiB pages
        assertEquals(131_072, a.marksPerWindow());
        assertEquals(1L << 21, a.bitCount());
        SecondMissAdmission small = new SecondMissAdmission(1);
        assertEquals(1024, small.marksPerWindow(), "at least 1,024 first misses");
    }

    @Test
    void theMarksAreClearedWhenTheWindowEnds() {
        SecondMissAdmission a = new SecondMissAdmission(1);
        long first = mix(0);
        assertFalse(a.admit(first));
        int window = a.marksPerWindow();
        SplittableRandom r = new SplittableRandom(7);
        int marked = 1;
        // Distinct pages until the window is full: `first` is still remembered just before.
        while (marked < window - 1) {
            if (!a.admit(mix(r.nextLong() | 1))) {
                marked++;
            }
        }
        assertTrue(a.admit(first), "remembered within the window");
        // One more first miss ends the window and clears every mark.
        long next;
        do {
            next = mix(r.nextLong() | 1);
        } while (a.admit(next));
        assertFalse(a.admit(first), "forgotten after the window");
    }

    @Test
    void fewPagesReadOnceAreAdmitted() {
        // Uniform reads over 14 times the cache: a page read once is (almost) never admitted.
        SecondMissAdmission a = new SecondMissAdmission(1000);
        int admitted = 0;
        for (long page = 0; page < 3_000; page++) {
            if (a.admit(mix(page))) {
                admitted++;
            }
        }
        assertTrue(admitted < 3_000 * 0.08, "false admissions " + admitted); // about 1 in 16 bits set at the end
    }

    private static long mix(long x) {
        x *= 0x9E3779B97F4A7C15L;
        x ^= x >>> 29;
        x *= 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 32);
    }
}
