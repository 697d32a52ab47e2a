package dev.strata.lsm.server;

/**
 * A hash's metadata record, stored under the hash's key (as Apache Kvrocks does): when it
 * expires, its version and how many fields it has.
 *
 * <pre>
 *   0x02 expireAtMillis(8, BE) version(8, BE) fields(8, BE)
 * </pre>
 *
 * Each field is one record of its own under {@link NodeKeys#hashPrefix}(key, version), its
 * value stored with the plain string header ({@code 0x00} then the field's value). Deleting,
 * expiring or overwriting the hash removes or replaces only this record; fields under an old
 * version are garbage no command reads (see docs/server.md, Hashes).
 *
 * @param expireAtMillis epoch milliseconds, {@link StoredValue#NEVER} for none
 * @param version the version its fields are stored under
 * @param fields the number of fields (never 0: a hash without fields is deleted)
 */
record HashMeta(long expireAtMillis, long version, long fields) {
    static final int BYTES = 25;

    byte[] encode() {
        byte[] out = new byte[BYTES];
        out[0] = StoredValue.HASH;
        NodeKeys.putLong(out, 1, expireAtMillis);
        NodeKeys.putLong(out, 9, version);
        NodeKeys.putLong(out, 17, fields);
        return out;
    }

    HashMeta withFields(long n) {
        return new HashMeta(expireAtMillis, version, n);
    }

    /**
     * The hash stored as {@code stored}, or null when the key is missing or expired at {@code nowMillis}.
     *
     * @throws WrongTypeException if the key holds a live string
     * @throws IllegalStateException if the bytes are not in the node's format
     */
    static HashMeta decode(byte[] stored, long nowMillis) {
        if (!StoredValue.live(stored, nowMillis)) {
            return null;
        }
        if (stored[0] != StoredValue.HASH) {
            throw new WrongTypeException();
        }
        if (stored.length != BYTES) {
            throw new IllegalStateException("hash metadata of " + stored.length + " bytes (expected " + BYTES + ")");
        }
        return new HashMeta(NodeKeys.readLong(stored, 1), NodeKeys.readLong(stored, 9),
                NodeKeys.readLong(stored, 17));
    }
}
