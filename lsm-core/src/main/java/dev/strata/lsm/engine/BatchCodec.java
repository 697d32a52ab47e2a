package dev.strata.lsm.engine;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.sstable.EntryType;

import java.nio.file.Path;
import java.util.List;

/**
 * Encodes write groups as WAL record payloads and replays them into a memtable. Layout
 * (docs/format.md, "WAL batch record"): u64 first sequence number, u32 operation count,
 * then per operation u8 type (0 delete, 1 put, 2 merge operand, 3 range delete), varint key
 * length, key, and for a put or merge varint value length and value, for a range delete varint
 * end key length and end key (the range is [key, end key)). Operation i has sequence number
 * first + i. An operation of a column family other than the default one has bit 7 of its type
 * set ({@link #FAMILY_FLAG}) and a varint family id right after the type byte; default-family
 * operations are written exactly as before families existed, so old segments replay unchanged.
 *
 * <p>A <em>void record</em> ({@link #encodeVoid}) has a negative operation count {@code -n} and no
 * operations: the write group of sequence numbers {@code first .. first + n - 1} failed while
 * its WAL append was under way, so an earlier segment may hold its record whole or in part.
 * Recovery skips that record in every family ({@link #voided}), so a failed cross-family batch
 * is not replayed into the families that had not flushed past it while those that had lack it.
 */
final class BatchCodec {
    /** Bit 7 of an operation's type byte: a varint column family id follows the type. */
    static final int FAMILY_FLAG = 0x80;
    /** The WAL operation type of a range delete (not an {@link EntryType}: tables never hold it as an entry). */
    static final int RANGE_DELETE = 3;

    private BatchCodec() {
    }

    /** Where replayed operations go: per column family id, a memtable and its durable sequence number. */
    interface ReplayTarget {
        /**
         * The memtable operations of {@code family} go to, or null to skip them (a dropped family).
         *
         * @throws IllegalArgumentException if the store never had that family
         */
        Memtable memtable(int family);

        /** The family's durable sequence number: its operations at or below it are in its tables already. */
        long durable(int family);
    }

    /** The bytes a WAL record holding only {@code batch} takes: its header and operations. */
    static long encodedSize(WriteBatch batch) {
        long size = 12;
        for (WriteBatch.Op op : batch.ops()) {
            size += 1 + varintSize(op.key().length) + op.key().length;
            if (op.familyId() != 0) {
                size += varintSize(op.familyId());
            }
            if (!op.delete()) {
                size += varintSize(op.value().length) + op.value().length;
            }
        }
        return size;
    }

    private static int varintSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    /** An upper bound of the encoded size of {@code batches}. */
    static int maxEncodedSize(List<WriteBatch> batches) {
        // An operation takes at most 1 + 5 + key + 5 + value bytes; WriteBatch charges 16 + key + value.
        long size = 12;
        for (WriteBatch b : batches) {
            size += b.approximateBytes();
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("write group of " + size + " bytes is too large to encode");
        }
        return (int) size;
    }

    /**
     * Encodes {@code batches} into {@code out}, which holds at least
     * {@link #maxEncodedSize} bytes, and returns the encoded length.
     */
    /** A void record: the write group of sequence numbers {@code first .. first + count - 1} failed (see above). */
    static byte[] encodeVoid(long first, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a void record covers at least one sequence number, got " + count);
        }
        byte[] out = new byte[12];
        putInt(out, putLong(out, 0, first), -count);
        return out;
    }

    /**
     * The sequence numbers a void record covers as {first, count}, or null when {@code rec} is
     * a batch record.
     *
     * @throws CorruptionException if the record is too short for its header
     */
    static long[] voided(byte[] rec, Path file, long offset) {
        if (rec.length < 12) {
            throw new CorruptionException(file, offset, "WAL record at offset " + offset + " of " + file + " has "
                    + rec.length + " bytes, fewer than a batch header");
        }
        int count = getInt(rec, 8);
        if (count >= 0) {
            return null;
        }
        if (rec.length != 12) {
            throw new CorruptionException(file, offset, "void WAL record at offset " + offset + " of " + file
                    + " has " + (rec.length - 12) + " trailing bytes");
        }
        return new long[] {getLong(rec, 0), -(long) count};
    }

    /** A record's first sequence number (its header checked by {@link #voided} first). */
    static long firstSequence(byte[] rec) {
        return getLong(rec, 0);
    }

    static int encode(List<WriteBatch> batches, long firstSeq, int count, byte[] out) {
        int p = 0;
        p = putLong(out, p, firstSeq);
        p = putInt(out, p, count);
        for (WriteBatch b : batches) {
            for (WriteBatch.Op op : b.ops()) {
                int type = op.delete() ? EntryType.DELETE.code() : op.rangeDelete() ? RANGE_DELETE
                        : op.merge() ? EntryType.MERGE.code() : EntryType.PUT.code();
                int family = op.familyId();
                if (family != 0) {
                    out[p++] = (byte) (type | FAMILY_FLAG);
                    p = putVarint(out, p, family);
                } else {
                    out[p++] = (byte) type;
                }
                p = putVarint(out, p, op.key().length);
                System.arraycopy(op.key(), 0, out, p, op.key().length);
                p += op.key().length;
                if (!op.delete()) {
                    p = putVarint(out, p, op.value().length);
                    System.arraycopy(op.value(), 0, out, p, op.value().length);
                    p += op.value().length;
                }
            }
        }
        return p;
    }

    /**
     * Adds the record's operations with sequence numbers above {@code durable} to
     * {@code mem} (those at or below it are in tables already) and returns the record's
     * last sequence number.
     *
     * @throws CorruptionException if the payload is malformed (its checksum was fine, so
     *     this means a bug or an incompatible writer)
     */
    static long replay(byte[] rec, Memtable mem, long durable, Path file, long offset) {
        return replay(rec, new ReplayTarget() {
            @Override
            public Memtable memtable(int family) {
                if (family != 0) {
                    throw new IllegalArgumentException("operation of column family " + family + " in a store without families");
                }
                return mem;
            }

            @Override
            public long durable(int family) {
                return durable;
            }
        }, file, offset);
    }

    /**
     * Adds the record's operations to the memtables {@code target} names for their families
     * (skipping those at or below the family's durable sequence number) and returns the
     * record's last sequence number.
     *
     * @throws CorruptionException if the payload is malformed or names a family the store never had
     */
    static long replay(byte[] rec, ReplayTarget target, Path file, long offset) {
        try {
            long seq = getLong(rec, 0);
            int count = getInt(rec, 8);
            int[] pos = {12};
            for (int i = 0; i < count; i++) {
                int type = rec[pos[0]++] & 0xff;
                int family = 0;
                if ((type & FAMILY_FLAG) != 0) {
                    type &= ~FAMILY_FLAG;
                    family = getVarint(rec, pos);
                }
                Memtable mem = target.memtable(family);
                long durable = mem == null ? Long.MAX_VALUE : target.durable(family);
                int klen = getVarint(rec, pos);
                byte[] key = java.util.Arrays.copyOfRange(rec, pos[0], pos[0] + klen);
                pos[0] += klen;
                if (type == EntryType.DELETE.code()) {
                    if (seq + i > durable) {
                        mem.add(key, seq + i, EntryType.DELETE, null);
                    }
                } else if (type == EntryType.PUT.code() || type == EntryType.MERGE.code()) {
                    int vlen = getVarint(rec, pos);
                    byte[] value = java.util.Arrays.copyOfRange(rec, pos[0], pos[0] + vlen);
                    pos[0] += vlen;
                    if (seq + i > durable) {
                        mem.add(key, seq + i, EntryType.fromCode(type), value);
                    }
                } else if (type == RANGE_DELETE) {
                    int elen = getVarint(rec, pos);
                    byte[] end = java.util.Arrays.copyOfRange(rec, pos[0], pos[0] + elen);
                    pos[0] += elen;
                    if (java.util.Arrays.compareUnsigned(key, end) > 0) {
                        throw new IllegalArgumentException("range delete with its start after its end");
                    }
                    if (seq + i > durable) {
                        mem.addRangeTombstone(key, end, seq + i);
                    }
                } else {
                    throw new IllegalArgumentException("unknown operation type " + type);
                }
            }
            if (pos[0] != rec.length) {
                throw new IllegalArgumentException((rec.length - pos[0]) + " trailing bytes");
            }
            return seq + count - 1;
        } catch (RuntimeException e) {
            throw new CorruptionException(file, offset, "malformed write batch in WAL record at offset " + offset
                    + " of " + file + ": " + e.getMessage(), e);
        }
    }

    private static int putLong(byte[] b, int p, long v) {
        for (int i = 7; i >= 0; i--) {
            b[p++] = (byte) (v >>> (8 * i));
        }
        return p;
    }

    private static int putInt(byte[] b, int p, int v) {
        for (int i = 3; i >= 0; i--) {
            b[p++] = (byte) (v >>> (8 * i));
        }
        return p;
    }

    private static int putVarint(byte[] b, int p, int v) {
        while ((v & ~0x7F) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    private static long getLong(byte[] b, int p) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[p + i] & 0xff);
        }
        return v;
    }

    private static int getInt(byte[] b, int p) {
        return ((b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
    }

    private static int getVarint(byte[] b, int[] pos) {
        int v = 0;
        for (int shift = 0; shift <= 28; shift += 7) {
            int x = b[pos[0]++];
            v |= (x & 0x7F) << shift;
            if (x >= 0) {
                if (v < 0) {
                    throw new IllegalArgumentException("negative length");
                }
                return v;
            }
        }
        throw new IllegalArgumentException("varint longer than 5 bytes");
    }
}
