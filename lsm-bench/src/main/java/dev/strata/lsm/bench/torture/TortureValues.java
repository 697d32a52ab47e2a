package dev.strata.lsm.bench.torture;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Keys and values of the torture key space. Key {@code i} is {@code "key-"} and its index in
 * 8 decimal digits, so byte order is index order. The value of write {@code version} of key
 * {@code i} is self-describing: the key index (4 bytes), the version (8 bytes) and filler
 * whose length and bytes are derived from both, so a value read back names the write that
 * produced it and any damaged or misplaced value is detected.
 */
public final class TortureValues {
    /** Bytes of a key. */
    public static final int KEY_BYTES = 12;
    private static final int HEADER = 12;

    private TortureValues() {
    }

    /** The key with index {@code index}. */
    public static byte[] key(int index) {
        byte[] k = new byte[KEY_BYTES];
        k[0] = 'k';
        k[1] = 'e';
        k[2] = 'y';
        k[3] = '-';
        int v = index;
        for (int i = KEY_BYTES - 1; i >= 4; i--) {
            k[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return k;
    }

    /** The index of {@code key}, or -1 if it is not a key of the torture key space. */
    public static int index(byte[] key) {
        if (key.length != KEY_BYTES || key[0] != 'k' || key[1] != 'e' || key[2] != 'y' || key[3] != '-') {
            return -1;
        }
        int v = 0;
        for (int i = 4; i < KEY_BYTES; i++) {
            int d = key[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** The value written by write {@code version} of key {@code index}. */
    public static byte[] value(int index, long version) {
        long seed = mix(index, version);
        SplittableRandom r = new SplittableRandom(seed);
        int filler = (seed & 63) == 0 ? 1000 + r.nextInt(12_000) : r.nextInt(240);
        byte[] v = new byte[HEADER + filler];
        ByteBuffer b = ByteBuffer.wrap(v);
        b.putInt(index);
        b.putLong(version);
        for (int i = HEADER; i < v.length; i++) {
            v[i] = (byte) r.nextInt(256);
        }
        return v;
    }

    /**
     * The version a value read back for key {@code index} was written by, or -1 when it is
     * not exactly a value this key space ever writes for that key (damaged, truncated or
     * belonging to another key).
     */
    public static long version(int index, byte[] value) {
        if (value == null || value.length < HEADER) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        if (b.getInt() != index) {
            return -1;
        }
        long version = b.getLong();
        if (version <= 0) {
            return -1;
        }
        return java.util.Arrays.equals(value, value(index, version)) ? version : -1;
    }

    // ------------------------------------------------------------------ counter keys

    /**
     * Bits of a counter's value that count merge operands: a counter key's value is
     * {@code baseVersion << COUNT_BITS | operands}, where {@code baseVersion} is the version
     * of the put it started from (0: it started from nothing, never written or deleted) and
     * {@code operands} the {@code uint64add} operands of 1 merged onto it since.
     */
    public static final int COUNT_BITS = 23;

    /**
     * Whether key {@code index} is a counter key: written with {@code merge} operands of the
     * store's {@code uint64add} operator (and puts of a base, and deletes), never by a batch.
     * One key in eight, spread over the three families.
     */
    public static boolean isCounter(int index) {
        return index % 8 == 7;
    }

    /** The value a put of version {@code version} gives a counter key: that base, no operand yet. */
    public static byte[] counterBase(long version) {
        return ByteBuffer.allocate(8).putLong(version << COUNT_BITS).array();
    }

    /** The operand every merge into a counter key writes: 1, as an 8-byte big-endian {@code uint64add} operand. */
    public static byte[] counterOperand() {
        return ByteBuffer.allocate(8).putLong(1).array();
    }

    /** A counter key's value read back, or -1 when it is not an 8-byte counter (damaged or not a counter's). */
    public static long counter(byte[] value) {
        if (value == null || value.length != 8) {
            return -1;
        }
        long v = ByteBuffer.wrap(value).getLong();
        return v < 0 ? -1 : v;
    }

    private static long mix(int index, long version) {
        long z = version * 0x9E3779B97F4A7C15L + index;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
