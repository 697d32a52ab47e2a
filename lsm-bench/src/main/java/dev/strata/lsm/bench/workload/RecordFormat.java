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
        if (keySize < MIN_KEY_SIZE) {
            throw new IllegalArgumentException("key size must be at least " + MIN_KEY_SIZE + " bytes, got " + keySize);
        }
        if (valueSize < 0) {
            throw new IllegalArgumentException("value size must not be negative, got " + valueSize);
        }
        this.keySize = keySize;
        this.valueSize = valueSize;
        this.pool = new byte[Math.max(POOL_BYTES, 2 * valueSize)];
        new SplittableRandom(seed).nextBytes(pool);
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
