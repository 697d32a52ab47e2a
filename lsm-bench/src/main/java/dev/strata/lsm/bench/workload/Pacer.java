package dev.strata.lsm.bench.workload;

import java.util.concurrent.locks.LockSupport;

/**
 * When a worker issues its i-th request, and the instant its latency is measured from.
 *
 * <p>Closed loop: at once, measured from the actual start. Open loop: on a fixed schedule,
 * {@code start + i / rate}, measured from the <em>scheduled</em> start even when the worker
 * is late because the engine stalled — otherwise a stall would delay the requests that
 * should have queued behind it and hide its cost (coordinated omission; see Xanthakis et
 * al., vLSM, §5, and Tene's "How NOT to measure latency"). A late worker does not wait, so
 * it catches up by issuing back to back. Not thread safe: one per worker.
 */
final class Pacer {
    /** Below this a park overshoots more than it waits; spin instead. */
    private static final long SPIN_NANOS = 100_000;

    private final boolean open;
    private final long startNanos;
    private final double intervalNanos;

    private Pacer(boolean open, long startNanos, double intervalNanos) {
        this.open = open;
        this.startNanos = startNanos;
        this.intervalNanos = intervalNanos;
    }

    /** Requests back to back, latency from the actual start. */
    static Pacer closedLoop() {
        return new Pacer(false, 0, 0);
    }

    /** Requests every {@code 1 / ratePerSecond} seconds from {@code startNanos} (System.nanoTime). */
    static Pacer openLoop(double ratePerSecond, long startNanos) {
        return new Pacer(true, startNanos, 1e9 / ratePerSecond);
    }

    boolean open() {
        return open;
    }

    /**
     * Waits until request {@code i} is due and returns the time its latency counts from.
     * The wait is bounded by the schedule: it never outlasts the request's due time.
     */
    long awaitStart(long i) {
        if (!open) {
            return System.nanoTime();
        }
        long due = startNanos + (long) (i * intervalNanos);
        long remaining;
        while ((remaining = due - System.nanoTime()) > 0) {
            if (remaining > 2 * SPIN_NANOS) {
                LockSupport.parkNanos(remaining - SPIN_NANOS);
            } else {
                Thread.onSpinWait();
            }
        }
        return due;
    }
}
