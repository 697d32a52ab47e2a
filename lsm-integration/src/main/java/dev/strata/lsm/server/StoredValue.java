package dev.strata.lsm.server;

import dev.strata.lsm.ValueExpiry;
import dev.strata.lsm.sstable.TableOptions;

import java.util.Arrays;

/**
 * The node's value format: a one-byte header, then for an expiring value its expiry time,
 * then the client's bytes.
 *
 * <pre>
 *   0x00 payload                      a value without expiry
 *   0x01 expireAtMillis(8, big endian) payload   a value that expires at that wall-clock time
 * </pre>
 *
 * Reads hide expired values; {@link #EXPIRY} tells the store's flushes and merges, which
 * write them out as tombstones. Any other header byte is corruption (the node wrote every value
 * in the store).
 *
 * @param payload the client's bytes
 * @param expireAtMillis when it expires (epoch milliseconds), or {@link #NEVER}
 */
record StoredValue(byte[] payload, long expireAtMillis) {
    static final long NEVER = Long.MAX_VALUE;
    static final byte PLAIN = 0;
    static final byte EXPIRING = 1;
    static final int EXPIRING_HEADER_BYTES = 9;

    /** What flushes and merges consult: an expiring value whose time has come. */
    static final ValueExpiry EXPIRY = (key, value, now) -> value.length >= EXPIRING_HEADER_BYTES
            && value[0] == EXPIRING && readLong(value, 1) <= now;

    /**
     * The store's {@code maxValueBytes} for a node whose clients may store values of up to
     * {@code clientLimit} bytes: room for the longest header on top (as far as the store allows).
     */
    static int storeLimit(int clientLimit) {
        return (int) Math.min((long) clientLimit + EXPIRING_HEADER_BYTES, TableOptions.MAX_VALUE_SIZE);
    }

    /** The largest client value that fits a store limit set by {@link #storeLimit}. */
    static int clientLimit(int storeLimit) {
        return Math.max(0, storeLimit - EXPIRING_HEADER_BYTES);
    }

    /** The stored form. */
    byte[] encode() {
        if (expireAtMillis == NEVER) {
            byte[] out = new byte[payload.length + 1];
            out[0] = PLAIN;
            System.arraycopy(payload, 0, out, 1, payload.length);
            return out;
        }
        byte[] out = new byte[payload.length + EXPIRING_HEADER_BYTES];
        out[0] = EXPIRING;
        for (int i = 0; i < 8; i++) {
            out[1 + i] = (byte) (expireAtMillis >>> (56 - 8 * i));
        }
        System.arraycopy(payload, 0, out, EXPIRING_HEADER_BYTES, payload.length);
        return out;
    }

    /**
     * The value stored as {@code stored}, or null when there is none or it has expired at
     * {@code nowMillis}.
     *
     * @throws IllegalStateException if the bytes are not in this format
     */
    static StoredValue decode(byte[] stored, long nowMillis) {
        if (stored == null) {
            return null;
        }
        if (stored.length >= 1 && stored[0] == PLAIN) {
            return new StoredValue(Arrays.copyOfRange(stored, 1, stored.length), NEVER);
        }
        if (stored.length >= EXPIRING_HEADER_BYTES && stored[0] == EXPIRING) {
            long at = readLong(stored, 1);
            if (at <= nowMillis) {
                return null;
            }
            return new StoredValue(Arrays.copyOfRange(stored, EXPIRING_HEADER_BYTES, stored.length), at);
        }
        throw new IllegalStateException("stored value has an unknown header (" + stored.length + " bytes, first "
                + (stored.length == 0 ? "none" : String.valueOf(stored[0] & 0xff)) + ")");
    }

    /**
     * Where the client's bytes start in {@code stored}, or -1 when there is no value or it
     * has expired at {@code nowMillis}: a read that only sends the value on needs no copy.
     *
     * @throws IllegalStateException if the bytes are not in this format
     */
    static int payloadStart(byte[] stored, long nowMillis) {
        if (stored == null) {
            return -1;
        }
        if (stored.length >= 1 && stored[0] == PLAIN) {
            return 1;
        }
        if (stored.length >= EXPIRING_HEADER_BYTES && stored[0] == EXPIRING) {
            return readLong(stored, 1) <= nowMillis ? -1 : EXPIRING_HEADER_BYTES;
        }
        return decode(stored, nowMillis) == null ? -1 : 0;
    }

    boolean expires() {
        return expireAtMillis != NEVER;
    }

    private static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }
}
