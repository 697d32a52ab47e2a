package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The open-loop pacing logic on a fake clock (time moves only when the pacer waits or the
 * simulated engine works), so the figures are exact and nothing depends on the machine's
 * speed; and one run of the real driver against an in-memory engine for the wiring.
 */
class OpenLoopTest {
    private static final long MS = 1_000_000;

    /** Runs {@code n} requests that each take {@code serviceNanos}; returns each latency as the driver records it. */
    private static long[] run(Pacer pacer, FakeClock clock, int n, long serviceNanos) {
        long[] latency = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = pacer.awaitStart(i);
            clock.now += serviceNanos;
            latency[i] = clock.nanoTime() - t0;
        }
        return latency;
    }

    @Test
    void anOverloadedOpenLoopMeasuresFromTheScheduledStart() {
        // 1,000 requests/s against 2 ms requests: request i is due at i ms but starts at 2i ms
        // (behind the ones before it), so its latency is its queueing i ms plus its 2 ms.
        FakeClock clock = new FakeClock();
        long[] open = run(Pacer.openLoop(1000, 0, clock), clock, 150, 2 * MS);
        for (int i = 0; i < open.length; i++) {
            assertEquals((i + 2) * MS, open[i], "request " + i);
        }
        assertTrue(clock.waits.isEmpty(), "a late worker issues back to back: " + clock.waits);
        // Closed loop hides the queueing: every request measures its 2 ms.
        FakeClock closedClock = new FakeClock();
        for (long l : run(Pacer.closedLoop(closedClock), closedClock, 150, 2 * MS)) {
            assertEquals(2 * MS, l);
        }
    }

    @Test
    void anOpenLoopWithinCapacityKeepsItsSchedule() {
        // 100 requests/s against 2 ms requests: each starts exactly when due, 10 ms apart.
        FakeClock clock = new FakeClock();
        clock.now = 5 * MS;
        Pacer pacer = Pacer.openLoop(100, 5 * MS, clock);
        for (int i = 0; i < 30; i++) {
            long t0 = pacer.awaitStart(i);
            assertEquals(5 * MS + i * 10 * MS, t0, "request " + i + " starts on schedule");
            assertEquals(t0, clock.now, "and not later");
            clock.now += 2 * MS;
            assertEquals(2 * MS, clock.now - t0);
        }
        assertEquals(5 * MS + 29 * 10 * MS + 2 * MS, clock.now, "30 requests at 100/s take 292 ms");
        // Every wait ended exactly at the next due time: the 8 ms left after each request.
        assertEquals(29, clock.waits.size());
        clock.waits.forEach(w -> assertEquals(8 * MS, w));
    }

    @Test
    void aStallIsChargedToTheRequestsQueuedBehindIt() {
        // 1,000 requests/s of 0.1 ms; request 10 stalls 50 ms. Requests 11..59 were due during the
        // stall and each counts from its own due time; from then on the worker catches up.
        FakeClock clock = new FakeClock();
        Pacer pacer = Pacer.openLoop(1000, 0, clock);
        long[] latency = new long[100];
        for (int i = 0; i < 100; i++) {
            long t0 = pacer.awaitStart(i);
            clock.now += i == 10 ? 50 * MS : MS / 10;
            latency[i] = clock.now - t0;
        }
        assertEquals(50 * MS, latency[10]);
        assertEquals(50 * MS - MS + MS / 10, latency[11], "due at 11 ms, done at 60.1 ms");
        assertTrue(latency[30] > 30 * MS, "still queued behind the stall: " + latency[30]);
        assertEquals(MS / 10, latency[99], "caught up: " + latency[99]);
    }

    @Test
    void fractionalIntervalsDoNotDrift() {
        // 3 requests per ms: due times are i / 3 ms, truncated to nanoseconds, never accumulated.
        Pacer pacer = Pacer.openLoop(3000, 0, new FakeClock());
        assertEquals(333_333, pacer.dueNanos(1));
        assertEquals(1_000_000_000_000L, pacer.dueNanos(3_000_000), "1000 s for 3e6 requests");
    }

    @Test
    void theDriverRunsAnOpenLoopAgainstAnEngine(@TempDir Path dir) throws InterruptedException {
        WorkloadSettings s = new WorkloadSettings(List.of(WorkloadType.FILLRANDOM, WorkloadType.READRANDOM), 20, 50,
                16, 100, 1, 3, null, 0.99, 5000.0, 100);
        EngineRun.Result r = EngineRun.execute(new FakeEngine(0), dir, s, null);
        WorkloadResult read = r.workloads().get(1);
        assertEquals(50, read.ops());
        assertEquals(0, read.misses(), "every get finds its record");
        assertEquals(50, read.latency().getTotalCount(), "one latency per request");
    }
}
