package dev.strata.lsm.engine;

/**
 * The write slowdown (RocksDB's write controller delay, {@code delayed_write_rate}): while a
 * merge policy answers {@link dev.strata.lsm.policy.WriteAdmission#SLOW_DOWN}, write groups go
 * in at most at a delayed write rate, which falls as the policy's
 * {@link dev.strata.lsm.policy.MergePolicy#slowdownDepth slowdown depth} nears 1 (see
 * {@link #rate}). A token bucket in time: {@link #charge} adds a group's bytes over the rate to
 * the time its writers have paid up to, and the group waits for whatever of that lies in the
 * future. Time the writers left unused is banked up to {@link #MAX_CREDIT_NANOS}, so a wait
 * that overslept pays for the next groups' bytes: on a loaded machine a one-millisecond park
 * often returns after several, and without the credit the writers would get a fraction of the
 * rate (measured: 5.4x below it at a load of 30 on two cores). Debts below
 * {@link #QUANTUM_NANOS} are carried to the next group instead of slept, as RocksDB refills its
 * credit at most once a millisecond: a sub-millisecond sleep costs more than it waits. So one
 * group waits at most its own bytes over the rate plus {@link #QUANTUM_NANOS}, never for good,
 * and the writers go in at most at the rate, with a burst of at most
 * {@link #MAX_CREDIT_NANOS} of it after an idle spell.
 *
 * <p>Not thread safe: the write queue's leader uses it with the engine's mutex held. Time is
 * given by the caller, so tests run it on a clock they move themselves.
 */
final class WritePacer {
    /** Debts below this are carried, not slept. */
    static final long QUANTUM_NANOS = 1_000_000L;
    /** At most this much time the writers left unused (overslept or idle) is banked for later groups. */
    static final long MAX_CREDIT_NANOS = 100_000_000L;
    /** The rate at the stop (slowdown depth 1), as a fraction of the delayed write rate. */
    static final double SLOWEST_FRACTION = 1.0 / 64;

    private boolean pacing;
    /** The time up to which the groups charged so far have paid, while pacing. */
    private long paidUntilNanos;

    /**
     * The rate write groups are paced to at {@code depth} into a policy's slowdown band: the
     * delayed write rate at 0, halving for each sixth of the band, 1/64 of it at 1 (RocksDB
     * lowers its rate by 0.8 to 0.6 a step as level 0 nears its stop, from 16 MiB/s towards
     * 16 KiB/s). Depths below 0 or NaN count as 0, above 1 as 1.
     *
     * @param delayedWriteRate the store's delayed write rate, bytes a second
     * @param depth the policy's slowdown depth
     * @return bytes a second
     */
    static double rate(long delayedWriteRate, double depth) {
        double d = depth > 0 ? Math.min(depth, 1.0) : 0.0;
        return delayedWriteRate * Math.pow(SLOWEST_FRACTION, d);
    }

    /**
     * Charges a write group's bytes at {@code bytesPerSecond} and answers how long it must wait
     * before it goes in: 0 while the debt is below {@link #QUANTUM_NANOS}, else all of it. The
     * first charge after {@link #stop} starts afresh from {@code nowNanos}.
     *
     * @param bytes the group's bytes
     * @param bytesPerSecond the rate now (at least 1)
     * @param nowNanos the time now ({@link System#nanoTime()} in the engine)
     * @return the nanoseconds to wait, 0 for none
     */
    long charge(long bytes, double bytesPerSecond, long nowNanos) {
        if (!pacing) {
            pacing = true;
            paidUntilNanos = nowNanos;
        }
        paidUntilNanos = Math.max(paidUntilNanos, nowNanos - MAX_CREDIT_NANOS);
        paidUntilNanos += (long) Math.ceil(bytes * 1e9 / bytesPerSecond);
        long debt = paidUntilNanos - nowNanos;
        return debt >= QUANTUM_NANOS ? debt : 0;
    }

    /** Writes are no longer slowed: the next slowdown starts with no debt and no credit. */
    void stop() {
        pacing = false;
    }

    /** Whether a slowdown is being paced (since the first {@link #charge} after {@link #stop}). */
    boolean pacing() {
        return pacing;
    }
}
