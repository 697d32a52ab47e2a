package dev.strata.lsm.version;

import java.util.concurrent.atomic.LongAdder;

/**
 * Approximate access statistics of one component since the store opened: how many point
 * lookups searched its table, and when the last one did. Cheap enough for every lookup (a
 * striped counter and a plain volatile write); racing lookups may leave an earlier time
 * as the last access, which is within the precision a policy needs.
 */
public final class ReadCounter {
    private final LongAdder reads = new LongAdder();
    private volatile long lastAccessMillis;

    /** Records one lookup at {@code nowMillis}. */
    public void record(long nowMillis) {
        reads.increment();
        if (nowMillis > lastAccessMillis) {
            lastAccessMillis = nowMillis;
        }
    }

    /** Lookups recorded so far. */
    public long reads() {
        return reads.sum();
    }

    /** Time of the last recorded lookup, milliseconds since the epoch; 0 if none. */
    public long lastAccessMillis() {
        return lastAccessMillis;
    }
}
