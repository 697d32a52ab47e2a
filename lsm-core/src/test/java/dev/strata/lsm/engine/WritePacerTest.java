package dev.strata.lsm.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The write slowdown's token bucket and rate curve, on a clock the test moves (issue 36). */
class WritePacerTest {
    private static final long MS = 1_000_000L;
    private static final long RATE = 1L << 20; // 1 MiB/s: 1,048,576 bytes take one second

    private static long cost(long bytes, double rate) {
        return (long) Math.ceil(bytes * 1e9 / rate);
    }

    @Test
    void theRateHalvesForEachSixthOfTheBandToOneSixtyFourthAtTheStop() {
        assertEquals(RATE, WritePacer.rate(RATE, 0), 1e-6);
        assertEquals(RATE / 2.0, WritePacer.rate(RATE, 1.0 / 6), 1e-6);
        assertEquals(RATE / 8.0, WritePacer.rate(RATE, 0.5), 1e-6);
        assertEquals(RATE / 64.0, WritePacer.rate(RATE, 1), 1e-6);
        // Out of range: clamped; NaN is the band's start.
        assertEquals(RATE, WritePacer.rate(RATE, -3), 1e-6);
        assertEquals(RATE, WritePacer.rate(RATE, Double.NaN), 1e-6);
        assertEquals(RATE / 64.0, WritePacer.rate(RATE, 7), 1e-6);
        double previous = Double.MAX_VALUE;
        for (int i = 0; i <= 100; i++) {
            double r = WritePacer.rate(RATE, i / 100.0);
            assertTrue(r < previous, "falls all the way: " + i);
            previous = r;
        }
    }

    @Test
    void aGroupWaitsItsBytesOverTheRateAndNoMore() {
        WritePacer p = new WritePacer();
        long now = 1_000 * MS;
        // 64 KiB at 1 MiB/s: 62.5 ms.
        assertEquals(cost(64 << 10, RATE), p.charge(64 << 10, RATE, now));
        now += cost(64 << 10, RATE); // it slept exactly that
        assertEquals(cost(64 << 10, RATE), p.charge(64 << 10, RATE, now));
    }

    @Test
    void smallGroupsCarryTheirDebtUntilAMillisecondIsOwed() {
        WritePacer p = new WritePacer();
        long now = 5 * MS;
        long bytes = 100; // 95 µs each at 1 MiB/s
        long owed = 0;
        int groups = 0;
        long delay;
        do {
            delay = p.charge(bytes, RATE, now);
            owed += cost(bytes, RATE);
            groups++;
        } while (delay == 0);
        assertEquals(owed, delay, "the group that owes a millisecond waits for every group before it");
        assertTrue(delay >= WritePacer.QUANTUM_NANOS && delay < WritePacer.QUANTUM_NANOS + cost(bytes, RATE),
                delay + " ns after " + groups + " groups");
    }

    @Test
    void everyWaitIsBoundedByTheGroupsBytesOverTheRatePlusAMillisecond() {
        // Groups of random sizes at random times, at rates falling and rising: whatever the
        // history, a group never waits more than its own bytes over the rate plus the quantum,
        // and the pacing holds: the time the writers took is at least the bytes over the rate.
        java.util.Random rnd = new java.util.Random(36);
        WritePacer p = new WritePacer();
        long start = 77 * MS;
        long now = start;
        double paid = 0;
        for (int i = 0; i < 100_000; i++) {
            long bytes = 1 + rnd.nextInt(rnd.nextBoolean() ? 200 : 1 << 20);
            double rate = WritePacer.rate(RATE, rnd.nextDouble());
            long delay = p.charge(bytes, rate, now);
            assertTrue(delay <= cost(bytes, rate) + WritePacer.QUANTUM_NANOS,
                    "group " + i + " of " + bytes + " bytes at " + rate + " B/s waits " + delay + " ns");
            paid += cost(bytes, rate);
            now += delay + (rnd.nextInt(4) == 0 ? rnd.nextInt(3 * (int) MS) : 0); // slept, oversleeps, idles
        }
        // Credit is banked for at most MAX_CREDIT_NANOS, so idle time cannot be spent later beyond that.
        assertTrue(now - start >= paid - WritePacer.MAX_CREDIT_NANOS, (now - start) + " ns for " + paid + " ns paid");
    }

    @Test
    void anOversleptWaitPaysForTheNextGroups() {
        WritePacer p = new WritePacer();
        long now = 0;
        long delay = p.charge(4096, RATE, now); // 3.9 ms
        assertEquals(cost(4096, RATE), delay);
        now += delay + 5 * MS; // the park returned 5 ms late, as on a loaded machine
        long groups = 0;
        long bytes = 0;
        while (p.charge(100, RATE, now) == 0) {
            groups++;
            bytes += 100;
        }
        // The 5 ms overslept paid for about 5 ms of bytes (5,243 at 1 MiB/s), plus the sub-millisecond carry.
        assertTrue(bytes >= 5_000 && bytes <= 5_243 + 1_049 + 100, groups + " groups, " + bytes + " bytes");
    }

    @Test
    void idleTimeIsBankedForAtMostTheCreditLimitAndAStopForgivesTheDebt() {
        WritePacer p = new WritePacer();
        long now = 0;
        assertEquals(0, p.charge(100, RATE, now));
        now += 10_000 * MS; // ten seconds idle: only MAX_CREDIT_NANOS of it counts
        long credit = (long) (RATE * (WritePacer.MAX_CREDIT_NANOS / 1e9)); // the bytes the banked time pays for
        assertEquals(0, p.charge(credit, RATE, now), "the banked time pays for its bytes");
        long delay = p.charge(64 << 10, RATE, now);
        assertEquals(cost(64 << 10, RATE) - (WritePacer.MAX_CREDIT_NANOS - cost(credit, RATE)), delay,
                "nothing more was banked than the limit");
        assertTrue(p.pacing());
        p.stop();
        assertTrue(!p.pacing());
        // After a stop the next slowdown starts without the debt: 100 bytes owe far less than a millisecond.
        assertEquals(0, p.charge(100, RATE, now));
    }
}
