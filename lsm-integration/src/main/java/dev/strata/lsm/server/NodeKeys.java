package dev.strata.lsm.server;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.WriteBatch;

import java.util.Arrays;

/**
 * The node's key space: the client's keys beside the node's own records (hash fields and
 * the node's bookkeeping) in one store.
 *
 * <pre>
 *   client key k, k[0] != 0xFF     stored as k
 *   client key k, k[0] == 0xFF     stored as 0xFF 0xFF k[1..]    (escaped: one byte longer)
 *   0xFF 0x00 name                 the node's own records (the key-format marker)
 *   0xFF 'h' len(4, BE) key version(8, BE) field   one field of a hash ({@link HashMeta}),
 *                                  in column family {@link #HASH_FIELD_FAMILY} (format 3)
 * </pre>
 *
 * Escaping keeps the order of client keys (every escaped key sorts after every unescaped
 * one, and among themselves as before), so SCAN still walks client keys in key order, and
 * leaves the range [0xFF, 0xFF 0xFF) to the node: SCAN, KEYS, DBSIZE and FLUSHALL read
 * client keys through {@link #clientScan}, which skips it. Stateless; thread safe.
 */
final class NodeKeys {
    static final byte ESCAPE = (byte) 0xFF;
    /** The first key of the node's own range. */
    static final byte[] INTERNAL_FROM = {ESCAPE};
    /** The first key after the node's own range (the first escaped client key). */
    static final byte[] INTERNAL_TO = {ESCAPE, ESCAPE};
    /** Hash fields: 0xFF 'h' ... */
    static final byte[] HASH_FIELDS = {ESCAPE, 'h'};
    /** The node's key-format marker; its value is {@link #FORMAT}. */
    static final byte[] FORMAT_MARKER = {ESCAPE, 0, 'n', 'o', 'd', 'e', '-', 'k', 'e', 'y', 's'};
    /**
     * The key format: 1 is client keys stored as they were; 2 adds the escaping and the node's
     * range, with hash fields in it; 3 moves the hash fields into column family
     * {@link #HASH_FIELD_FAMILY} (same keys), so the default family holds one record per client
     * key (and the marker), and its key count is the node's key count.
     */
    static final byte FORMAT = 3;
    /** Format 2: hash fields in the default family, in the node's range. */
    static final byte FORMAT_FIELDS_IN_DEFAULT = 2;
    /** The column family of every hash's fields (from format 3), keys {@code 0xFF 'h' ...} as before. */
    static final String HASH_FIELD_FAMILY = "node-hash-fields";
    /** Field records copied per write batch when a format 2 store is brought up to format 3. */
    private static final int MIGRATION_BATCH = 1024;

    private NodeKeys() {
    }

    /** The stored form of a client key ({@code key} itself unless it starts with 0xFF). */
    static byte[] stored(byte[] key) {
        if (key.length == 0 || key[0] != ESCAPE) {
            return key;
        }
        byte[] out = new byte[key.length + 1];
        out[0] = ESCAPE;
        System.arraycopy(key, 0, out, 1, key.length);
        return out;
    }

    /** The client key a stored key outside the node's range stands for. */
    static byte[] client(byte[] stored) {
        if (stored.length == 0 || stored[0] != ESCAPE) {
            return stored;
        }
        return Arrays.copyOfRange(stored, 1, stored.length);
    }


    /**
     * Checks that {@code store} holds the node's key format, brings a store of an older format
     * up to it, and marks a new store with it; creates the {@link #HASH_FIELD_FAMILY} family
     * when it is missing. A store without the marker that holds keys starting with 0xFF was
     * written before the escaping (format 1): its keys would read as the node's own, so it is
     * refused. A format 2 store holds its hash fields in the default family, in the node's
     * range: they are copied into the family (idempotent puts, then a flush of the family), and
     * one write batch deletes them from the default family by range and writes the marker, so
     * a crash at any point leaves either format 2 (the copy is done again at the next start)
     * or format 3.
     *
     * @throws IllegalStateException naming the problem when the store cannot be served
     */
    static void checkFormat(LsmStore store) {
        byte[] marker = store.get(FORMAT_MARKER);
        int format = 0;
        if (marker != null) {
            if (marker.length != 2 || marker[0] != StoredValue.PLAIN
                    || (marker[1] != FORMAT && marker[1] != FORMAT_FIELDS_IN_DEFAULT)) {
                throw new IllegalStateException("the store's node key format is "
                        + (marker.length == 2 ? String.valueOf(marker[1]) : "unreadable")
                        + "; this node reads formats " + FORMAT_FIELDS_IN_DEFAULT + " and " + FORMAT);
            }
            format = marker[1];
        } else {
            try (Cursor c = store.scan(INTERNAL_FROM, null)) {
                if (c.next()) {
                    throw new IllegalStateException("the store holds keys starting with byte 0xFF written by a node "
                            + "before key format " + FORMAT_FIELDS_IN_DEFAULT
                            + " (which escapes such keys); it cannot be served as it is");
                }
            }
        }
        ColumnFamily fields = store.listColumnFamilies().stream()
                .filter(f -> f.name().equals(HASH_FIELD_FAMILY)).findFirst()
                .orElseGet(() -> store.createColumnFamily(HASH_FIELD_FAMILY, FamilyOptions.defaults()));
        if (format == FORMAT) {
            return;
        }
        WriteBatch last = new WriteBatch();
        if (format == FORMAT_FIELDS_IN_DEFAULT) {
            byte[] end = RespCommands.prefixEnd(HASH_FIELDS);
            try (Cursor c = store.scan(HASH_FIELDS, end)) {
                WriteBatch copy = new WriteBatch();
                int n = 0;
                while (c.next()) {
                    copy.put(fields, c.key(), c.value());
                    if (++n % MIGRATION_BATCH == 0) {
                        store.write(copy);
                        copy = new WriteBatch();
                    }
                }
                if (!copy.isEmpty()) {
                    store.write(copy);
                }
            }
            store.flushColumnFamily(fields);
            last.deleteRange(HASH_FIELDS, end);
        }
        last.put(FORMAT_MARKER, new byte[] {StoredValue.PLAIN, FORMAT});
        store.write(last);
    }

    /** The handle of the family holding hash fields in a store {@link #checkFormat} accepted. */
    static ColumnFamily hashFields(LsmStore store) {
        return store.columnFamily(HASH_FIELD_FAMILY);
    }

    /** The prefix of every field of version {@code version} of hash {@code key}. */
    static byte[] hashPrefix(byte[] key, long version) {
        byte[] out = new byte[2 + 4 + key.length + 8];
        out[0] = HASH_FIELDS[0];
        out[1] = HASH_FIELDS[1];
        putInt(out, 2, key.length);
        System.arraycopy(key, 0, out, 6, key.length);
        putLong(out, 6 + key.length, version);
        return out;
    }

    /** The prefix of every field of every version of hash {@code key}. */
    static byte[] hashKeyPrefix(byte[] key) {
        return Arrays.copyOf(hashPrefix(key, 0), 6 + key.length);
    }

    /** The stored key of {@code field} given its version's {@link #hashPrefix}. */
    static byte[] hashField(byte[] prefix, byte[] field) {
        byte[] out = Arrays.copyOf(prefix, prefix.length + field.length);
        System.arraycopy(field, 0, out, prefix.length, field.length);
        return out;
    }

    /** The version written in a stored hash field key of hash {@code key}. */
    static long hashVersion(byte[] storedField, byte[] key) {
        return readLong(storedField, 6 + key.length);
    }

    /**
     * A cursor over the client keys stored in [from, to) (stored forms; null: open), in key
     * order, skipping the node's own range. {@link ClientCursor#key()} gives the stored form
     * (decode with {@link #client}). Bounds from client keys: {@link #stored} keeps their order.
     */
    static ClientCursor clientScan(LsmStore store, byte[] from, byte[] to) {
        return new ClientCursor(store, from, to);
    }

    /** See {@link #clientScan}. Not thread safe; close it. */
    static final class ClientCursor implements AutoCloseable {
        private final LsmStore store;
        private final byte[] to;
        private Cursor cursor;
        private boolean pastInternal;

        private ClientCursor(LsmStore store, byte[] from, byte[] to) {
            this.store = store;
            this.to = to;
            boolean startsPast = from != null && Arrays.compareUnsigned(from, INTERNAL_TO) >= 0;
            this.pastInternal = startsPast;
            byte[] firstTo = startsPast ? to : min(to, INTERNAL_FROM);
            this.cursor = store.scan(from, firstTo);
        }

        /** Moves to the next client key; false at the end. */
        boolean next() {
            if (cursor.next()) {
                return true;
            }
            if (pastInternal || (to != null && Arrays.compareUnsigned(to, INTERNAL_TO) <= 0)) {
                return false;
            }
            pastInternal = true;
            cursor.close();
            cursor = store.scan(INTERNAL_TO, to);
            return cursor.next();
        }

        /** The stored key. */
        byte[] key() {
            return cursor.key();
        }

        byte[] value() {
            return cursor.value();
        }

        @Override
        public void close() {
            cursor.close();
        }

        private static byte[] min(byte[] a, byte[] b) {
            return a == null || Arrays.compareUnsigned(b, a) < 0 ? b : a;
        }
    }

    static void putInt(byte[] b, int off, int v) {
        for (int i = 0; i < 4; i++) {
            b[off + i] = (byte) (v >>> (24 - 8 * i));
        }
    }

    static void putLong(byte[] b, int off, long v) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }
}
