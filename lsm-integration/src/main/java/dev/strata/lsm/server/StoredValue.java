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
 *   0x02 expireAtMillis(8) version(8) fields(8)  a hash's metadata record ({@link HashMeta})
 * </pre>
 *
 * Reads hide expired values; {@link #EXPIRY} tells the store's flushes and merges, which
 * write them out as tombstones (expiring strings and hashes alike). Any other header byte is
 * corruption (the node wrote every value in the store). The string commands find a hash's
 * metadata with {@link #decode}, which throws {@link WrongTypeException} for it; the commands
 * on keys of any type use {@link #live}, {@link #expireAt}, {@link #type} and {@link #withExpiry}.
 *
 * @param payload the client's bytes
 * @param expireAtMillis when it expires (epoch milliseconds), or {@link #NEVER}
 */
record StoredValue(byte[] payload, long expireAtMillis) {
    static final long NEVER = Long.MAX_VALUE;
    static final byte PLAIN = 0;
    static final byte EXPIRING = 1;
    static final byte HASH = 2;
    static final int EXPIRING_HEADER_BYTES = 9;

    /** What flushes and merges consult: an expiring value (or hash) whose time has come. */
    static final ValueExpiry EXPIRY = (key, value, now) -> value.length >= EXPIRING_HEADER_BYTES
            && (value[0] == EXPIRING || value[0] == HASH) && NodeKeys.readLong(value, 1) <= now;

    /**
     * When the value stored as {@code stored} (a string or a hash's metadata) expires, epoch
     * milliseconds, {@link #NEVER} for none.
     *
     * @throws IllegalStateException if the bytes are not in this format
     */
    static long expireAt(byte[] stored) {
        if (stored.length >= 1 && stored[0] == PLAIN) {
            return NEVER;
        }
        if (stored.length >= EXPIRING_HEADER_BYTES && (stored[0] == EXPIRING || stored[0] == HASH)) {
            return NodeKeys.readLong(stored, 1);
        }
        throw unknownHeader(stored);
    }

    /** Whether {@code stored} holds a key of any type that has not expired at {@code nowMillis}. */
    static boolean live(byte[] stored, long nowMillis) {
        return stored != null && expireAt(stored) > nowMillis;
    }

    /** TYPE's answer for {@code stored}: {@code none}, {@code string} or {@code hash}. */
    static String type(byte[] stored, long nowMillis) {
        if (!live(stored, nowMillis)) {
            return "none";
        }
        return stored[0] == HASH ? "hash" : "string";
    }

    /** {@code stored} (a live string or hash) with its expiry time set to {@code at} ({@link #NEVER}: none). */
    static byte[] withExpiry(byte[] stored, long at) {
        if (stored[0] == HASH) {
            byte[] out = stored.clone();
            NodeKeys.putLong(out, 1, at);
            return out;
        }
        return new StoredValue(decode(stored, Long.MIN_VALUE).payload(), at).encode();
    }

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
        NodeKeys.putLong(out, 1, expireAtMillis);
        System.arraycopy(payload, 0, out, EXPIRING_HEADER_BYTES, payload.length);
        return out;
    }

    /**
     * The value stored as {@code stored}, or null when there is none or it has expired at
     * {@code nowMillis}.
     *
     * @throws WrongTypeException if {@code stored} is a hash's metadata, not expired
     * @throws IllegalStateException if the bytes are not in this format
     */
    static StoredValue decode(byte[] stored, long nowMillis) {
        if (stored == null) {
            return null;
        }
        if (stored.length >= EXPIRING_HEADER_BYTES && stored[0] == HASH) {
            if (NodeKeys.readLong(stored, 1) <= nowMillis) {
                return null;
            }
            throw new WrongTypeException();
        }
        if (stored.length >= 1 && stored[0] == PLAIN) {
            return new StoredValue(Arrays.copyOfRange(stored, 1, stored.length), NEVER);
        }
        if (stored.length >= EXPIRING_HEADER_BYTES && stored[0] == EXPIRING) {
            long at = NodeKeys.readLong(stored, 1);
            if (at <= nowMillis) {
                return null;
            }
            return new StoredValue(Arrays.copyOfRange(stored, EXPIRING_HEADER_BYTES, stored.length), at);
        }
        throw unknownHeader(stored);
    }

    private static IllegalStateException unknownHeader(byte[] stored) {
        return new IllegalStateException("stored value has an unknown header (" + stored.length + " bytes, first "
                + (stored.length == 0 ? "none" : String.valueOf(stored[0] & 0xff)) + ")");
    }

    /**
     * Where the client's bytes start in {@code stored}, or -1 when there is no value or it
     * has expired at {@code nowMillis}: a read that only sends the value on needs no copy.
     *
     * @throws WrongTypeException if {@code stored} is a hash's metadata, not expired
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
            return NodeKeys.readLong(stored, 1) <= nowMillis ? -1 : EXPIRING_HEADER_BYTES;
        }
        return decode(stored, nowMillis) == null ? -1 : 0;
    }

    boolean expires() {
        return expireAtMillis != NEVER;
    }
}
