package dev.strata.lsm.bench.engine;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits for an engine that offers no "wait for compactions" call to go idle, by polling
 * its own notion of pending work. Bounded: a tree that keeps finding work for longer than
 * {@link #LIMIT_NANOS} is reported rather than waited on forever.
 */
final class BackgroundWork {
    /** Half an hour: far beyond any merge backlog a benchmark run can build on this machine. */
    static final long LIMIT_NANOS = TimeUnit.MINUTES.toNanos(30);
    private static final long POLL_MILLIS = 20;

    private BackgroundWork() {
    }

    /**
     * Returns once {@code busy} has answered false twice in a row (once can be the gap
     * between one compaction finishing and the next being scheduled).
     *
     * @throws IllegalStateException if the engine is still busy after {@link #LIMIT_NANOS}
     */
    static void awaitIdle(String engine, BooleanSupplier busy) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        int idleInARow = 0;
        while (idleInARow < 2) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(engine + " still had background work after "
                        + TimeUnit.NANOSECONDS.toMinutes(LIMIT_NANOS) + " minutes");
            }
            idleInARow = busy.getAsBoolean() ? 0 : idleInARow + 1;
            if (idleInARow < 2) {
                try {
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + engine + " to go idle", e);
                }
            }
        }
    }
}
