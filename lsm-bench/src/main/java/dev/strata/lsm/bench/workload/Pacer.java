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
    /** Where a pacer reads the time and how it waits; tests substitute a fake. */
    interface Clock {
        /** Monotonic nanoseconds, as {@link System#nanoTime()}. */
        long nanoTime();

        /** Waits about {@code nanos} (> 0) and never much longer; may return early. */
        void waitNanos(long nanos);
    }

    /** The real clock: parks for long waits, spins the last {@link #SPIN_NANOS} (a park overshoots). */
    static final Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void waitNanos(long nanos) {
            if (nanos > 2 * SPIN_NANOS) {
                LockSupport.parkNanos(nanos - SPIN_NANOS);
            } else {
                Thread.onSpinWait();
            }
        }
    };

    /** Below this a park overshoots more than it waits; spin instead. */
    private static final long SPIN_NANOS = 100_000;

    private final boolean open;
    private final long startNanos;
    private final double intervalNanos;
    private final Clock clock;

    private Pacer(boolean open, long startNanos, double intervalNanos, Clock clock) {
        this.open = open;
        this.startNanos = startNanos;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /** Requests back to back, latency from the actual start. */
    static Pacer closedLoop() {
        return closedLoop(SYSTEM);
    }

    static Pacer closedLoop(Clock clock) {
        return new Pacer(false, 0, 0, clock);
    }

    /** Requests every {@code 1 / ratePerSecond} seconds from {@code startNanos} (System.nanoTime). */
    static Pacer openLoop(double ratePerSecond, long startNanos) {
        return openLoop(ratePerSecond, startNanos, SYSTEM);
    }

    /** As {@link #openLoop(double, long)} on {@code clock}. */
    static Pacer openLoop(double ratePerSecond, long startNanos, Clock clock) {
        return new Pacer(true, startNanos, 1e9 / ratePerSecond, clock);
    }

    boolean open() {
        return open;
    }

    /** When request {@code i} is due (open loop). */
    long dueNanos(long i) {
        return startNanos + (long) (i * intervalNanos);
    }

    /**
     * Waits until request {@code i} is due and returns the time its latency counts from.
     * The wait is bounded by the schedule: it never outlasts the request's due time.
     */
    long awaitStart(long i) {
        if (!open) {
            return clock.nanoTime();
        }
        long due = dueNanos(i);
        long remaining;
        while ((remaining = due - clock.nanoTime()) > 0) {
            clock.waitNanos(remaining);
        }
        return due;
    }
}
