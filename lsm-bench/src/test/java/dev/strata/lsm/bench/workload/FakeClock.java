package dev.strata.lsm.bench.workload;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Time that moves only when told (or when the pacer waits); records every wait the pacer asks for. */
final class FakeClock implements Pacer.Clock {
    long now;
    final List<Long> waits = new ArrayList<>();

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public void waitNanos(long nanos) {
        assertTrue(nanos > 0, "waits only when early");
        waits.add(nanos);
        now += nanos;
    }
}
