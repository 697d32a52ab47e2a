package dev.strata.lsm.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when its test moves it, for stores given it as their clock
 * ({@code StoreConfig.Builder.clock}): the times a store stamps on its tables and shows its
 * merge policy are then the test's, so a test of time-based behaviour (tombstone or file age,
 * value expiry) advances the clock past a deadline instead of sleeping through it, and
 * asserts exact times. Millisecond resolution; thread safe (the store reads it from its own
 * threads); never goes backwards.
 */
public final class ManualClock implements InstantSource {
    private final AtomicLong millis;

    /** A clock reading {@code startMillis} (milliseconds since the epoch) until moved. */
    public ManualClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    /**
     * Moves the clock {@code by} forwards and returns the new time in milliseconds.
     *
     * @throws IllegalArgumentException if {@code by} is negative
     */
    public long advance(Duration by) {
        return advanceMillis(by.toMillis());
    }

    /**
     * Moves the clock {@code deltaMillis} forwards and returns the new time.
     *
     * @throws IllegalArgumentException if {@code deltaMillis} is negative
     */
    public long advanceMillis(long deltaMillis) {
        if (deltaMillis < 0) {
            throw new IllegalArgumentException("a manual clock does not go backwards (" + deltaMillis + " ms)");
        }
        return millis.addAndGet(deltaMillis);
    }

    @Override
    public String toString() {
        return "ManualClock[" + millis.get() + " ms]";
    }
}
