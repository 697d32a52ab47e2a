package dev.strata.lsm.sstable;

import java.util.Arrays;

/**
 * One version of one user key: the key, the sequence number that ordered the write, the
 * type and, for {@link EntryType#PUT}, the value. Internal entries sort by key ascending,
 * then sequence number descending (newest first), see {@link InternalKeys}.
 *
 * @param key user key bytes
 * @param seqno sequence number, 0 to {@link InternalKeys#MAX_SEQNO}
 * @param type PUT or DELETE
 * @param value the value for PUT, null for DELETE
 */
public record InternalEntry(byte[] key, long seqno, EntryType type, byte[] value) {

    /** A PUT entry. */
    public static InternalEntry put(byte[] key, long seqno, byte[] value) {
        return new InternalEntry(key, seqno, EntryType.PUT, value);
    }

    /** A DELETE entry (tombstone). */
    public static InternalEntry delete(byte[] key, long seqno) {
        return new InternalEntry(key, seqno, EntryType.DELETE, null);
    }

    /** Whether this entry is a tombstone. */
    public boolean isTombstone() {
        return type == EntryType.DELETE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InternalEntry e && seqno == e.seqno && type == e.type
                && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(key) * 31 + Long.hashCode(seqno)) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return type + " " + InternalKeys.describe(key) + "@" + seqno
                + (value == null ? "" : " (" + value.length + " bytes)");
    }
}
