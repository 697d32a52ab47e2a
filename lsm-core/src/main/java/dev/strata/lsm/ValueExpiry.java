package dev.strata.lsm;

/**
 * Tells flushes and merges which values have expired, for stores whose users keep a time to
 * live inside their values (the RESP node keeps it in a small value header). An expired value
 * is written out as a tombstone, and like any tombstone it is dropped where nothing older
 * for its key can remain below; it is never simply left out, which could bring back an older
 * version of the key from a component the merge did not read. Reads are not filtered by
 * the store: the owner of the value format hides expired values itself, since a value
 * expires between merges.
 *
 * <p>Called on background threads for every value they write: it must be fast, thread safe,
 * never block, never call back into the store, and give the same answer for the same value
 * and time. An exception it throws fails the flush or merge (the data stays as it was).
 */
@FunctionalInterface
public interface ValueExpiry {

    /**
     * Whether {@code value}, stored under {@code key}, has expired at {@code nowMillis}
     * (milliseconds since the epoch, {@link System#currentTimeMillis()}).
     *
     * @param key the key the value is stored under
     * @param value the value
     * @param nowMillis the current time in milliseconds since the epoch
     * @return true when the value has expired
     */
    boolean expired(byte[] key, byte[] value, long nowMillis);
}
