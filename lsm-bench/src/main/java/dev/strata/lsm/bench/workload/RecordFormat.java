package dev.strata.lsm.bench.workload;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bytes of record number r: keys and values are pure functions of the record number
 * (and, for values, of which workload wrote them), so every engine receives byte-identical
 * data and a read can be checked against what was written.
 *
 * <p>A key is {@code keySize} bytes: zeros, then r as an 8-byte big-endian number, so key
 * order is record order (sequential fills write in key order; scans walk consecutive
 * records). A value is {@code valueSize} bytes cut from a pool of seeded random bytes at an
 * offset hashed from (r, salt), which is incompressible like db_bench's default data and
 * costs one copy, not one random draw per byte.
 */
public final class RecordFormat {
    /** Smallest key: the 8 bytes of the record number. */
    public static final int MIN_KEY_SIZE = 8;
    private static final int POOL_BYTES = 1 << 20;

    private final int keySize;
    private final int valueSize;
    private final byte[] pool;

    /**
     * @param keySize bytes per key, at least {@link #MIN_KEY_SIZE}
     * @param valueSize bytes per value, 0 or more
     * @param seed seeds the value bytes
     */
    public RecordFormat(int keySize, int valueSize, long seed) {
        this(keySize, valueSize, seed, 1.0);
    }

    /**
     * Values that compress to about {@code compressibility} of their size, as db_bench's
     * {@code compression_ratio}: below 1 the value pool is made of 100-byte pieces, each a
     * random printable string of {@code max(1, 100·compressibility)} characters repeated to
     * 100 bytes (db_bench's {@code CompressibleString}); at 1 (the default) the pool is random
     * bytes, which no codec shrinks.
     *
     * @param compressibility in (0, 1]
     */
    public RecordFormat(int keySize, int valueSize, long seed, double compressibility) {
        if (keySize < MIN_KEY_SIZE) {
            throw new IllegalArgumentException("key size must be at least " + MIN_KEY_SIZE + " bytes, got " + keySize);
        }
        if (valueSize < 0) {
            throw new IllegalArgumentException("value size must not be negative, got " + valueSize);
        }
        this.keySize = keySize;
        this.valueSize = valueSize;
        if (!(compressibility > 0 && compressibility <= 1)) {
            throw new IllegalArgumentException("value compressibility must be in (0, 1], got " + compressibility);
        }
        this.pool = new byte[Math.max(POOL_BYTES, 2 * valueSize)];
        fill(pool, new SplittableRandom(seed), compressibility);
    }

    /** Fills {@code dst} with bytes of compressibility {@code ratio} (see the constructor). */
    public static void fill(byte[] dst, SplittableRandom rnd, double ratio) {
        if (ratio >= 1.0) {
            rnd.nextBytes(dst);
            return;
        }
        int raw = Math.max(1, (int) (100 * ratio));
        byte[] piece = new byte[raw];
        for (int at = 0; at < dst.length; at += 100) {
            for (int i = 0; i < raw; i++) {
                piece[i] = (byte) (' ' + rnd.nextInt(95));
            }
            int end = Math.min(dst.length, at + 100);
            for (int i = at; i < end; i++) {
                dst[i] = piece[(i - at) % raw];
            }
        }
    }

    public int keySize() {
        return keySize;
    }

    public int valueSize() {
        return valueSize;
    }

    /** User bytes of one record: key plus value. */
    public long recordBytes() {
        return (long) keySize + valueSize;
    }

    /** A new array holding the key of {@code record}. */
    public byte[] key(long record) {
        byte[] k = new byte[keySize];
        for (int i = 0; i < 8; i++) {
            k[keySize - 1 - i] = (byte) (record >>> (8 * i));
        }
        return k;
    }

    /** Prefix groups per filled group in a sparse fill ({@code fillsparse}). */
    public static final int SPARSE_SPACING = 16;

    /**
     * The record number whose key a sparse fill writes for {@code record}: its prefix group
     * ({@code record >>> 8}, the key without its last byte) spread {@value #SPARSE_SPACING}
     * groups apart, its last byte kept, so the {@value #SPARSE_SPACING}{@code - 1} groups after
     * each filled one are empty.
     */
    public static long sparseRecord(long record) {
        return ((record >>> 8) * SPARSE_SPACING << 8) | (record & 0xFF);
    }

    /**
     * The key prefix ({@code keySize - 1} bytes) of an empty group of a sparse fill: the
     * {@code gap}-th group after the filled group of {@code record}.
     *
     * @param gap 1 to {@value #SPARSE_SPACING}{@code - 1}
     */
    public byte[] absentPrefix(long record, int gap) {
        if (gap < 1 || gap >= SPARSE_SPACING) {
            throw new IllegalArgumentException("gap must be from 1 to " + (SPARSE_SPACING - 1) + ", got " + gap);
        }
        byte[] key = key(sparseRecord(record) + ((long) gap << 8));
        return Arrays.copyOf(key, keySize - 1);
    }

    /** The record number a key encodes. */
    public long record(byte[] key) {
        long r = 0;
        for (int i = keySize - 8; i < keySize; i++) {
            r = (r << 8) | (key[i] & 0xFF);
        }
        return r;
    }

    /**
     * A new array holding the value written for {@code record} by the workload with this
     * {@code salt}. New each time because engines may keep the array they are given.
     */
    public byte[] value(long record, long salt) {
        int span = pool.length - valueSize + 1;
        int offset = (int) Long.remainderUnsigned(RandomPermutation.mix(record * 0x9E3779B97F4A7C15L + salt), span);
        return Arrays.copyOfRange(pool, offset, offset + valueSize);
    }
}
