package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenLoopTest {
    private static final long GET_MILLIS = 2;

    private static WorkloadResult readrandom(Path dir, Double rate, long ops) throws InterruptedException {
        // Few records: the paced fill takes records / rate seconds too.
        WorkloadSettings s = new WorkloadSettings(List.of(WorkloadType.FILLRANDOM, WorkloadType.READRANDOM), 20, ops,
                16, 100, 1, 3, null, 0.99, rate, 100);
        FakeEngine engine = new FakeEngine(GET_MILLIS);
        EngineRun.Result r = EngineRun.execute(engine, dir, s, null);
        WorkloadResult read = r.workloads().get(1);
        assertEquals(ops, read.ops());
        assertEquals(0, read.misses(), "every get finds its record");
        return read;
    }

    @Test
    void anOverloadedOpenLoopMeasuresFromTheScheduledStart(@TempDir Path dir) throws InterruptedException {
        // 1,000 requests/s against gets of 2 ms: the engine falls 1 ms further behind per request,
        // so the last requests start ~150 ms after they were due, and that wait is their latency.
        WorkloadResult open = readrandom(dir.resolve("open"), 1000.0, 150);
        WorkloadResult closed = readrandom(dir.resolve("closed"), null, 150);
        double openP99 = Latency.of(open.latency()).p99();
        double closedP99 = Latency.of(closed.latency()).p99();
        assertTrue(openP99 > 20 * GET_MILLIS * 1000,
                "open-loop p99 " + openP99 + " us should include ~140 ms of queueing behind 2 ms gets");
        assertTrue(closedP99 < openP99 / 3, "closed-loop p99 " + closedP99 + " us hides the queueing");
        assertTrue(Latency.of(closed.latency()).p50() >= GET_MILLIS * 1000, "a get takes at least 2 ms");
    }

    @Test
    void anOpenLoopWithinCapacityKeepsItsScheduleAndLatency(@TempDir Path dir) throws InterruptedException {
        // 100 requests/s against 2 ms gets: every request starts on time.
        WorkloadResult paced = readrandom(dir, 100.0, 30);
        Latency l = Latency.of(paced.latency());
        assertTrue(paced.seconds() >= 0.29 - 0.01, "30 requests at 100/s take about 0.3 s, took " + paced.seconds());
        assertTrue(l.p50() >= GET_MILLIS * 1000 && l.p50() < 10 * GET_MILLIS * 1000,
                "p50 " + l.p50() + " us should be about one get");
    }
}
