package dev.strata.lsm.bench.jmh;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The keys and values every benchmark works on: 16-byte keys and 100-byte values,
 * generated deterministically so that every run, and every forked JVM, sees the same data.
 *
 * <p>Key number {@code i} is eight bytes of a bijective 64-bit mix of {@code i} followed by
 * {@code i} itself, both big-endian. The mix spreads consecutive numbers over the whole key
 * space, as hashed ids do, so a run of key numbers arrives in random key order; being a
 * bijection it also makes distinct numbers give distinct keys, so keys from disjoint number
 * ranges are guaranteed disjoint (that is how the bloom benchmark gets absent keys).
 */
final class KeySpace {
    /** Bytes per key. */
    static final int KEY_SIZE = 16;
    /** Bytes per value. */
    static final int VALUE_SIZE = 100;

    private KeySpace() {
    }

    /** Key number {@code i}. */
    static byte[] key(long i) {
        byte[] key = new byte[KEY_SIZE];
        putLong(key, 0, mix(i));
        putLong(key, 8, i);
        return key;
    }

    /** Keys number {@code first} to {@code first + count - 1}, in number (so random key) order. */
    static byte[][] keys(long first, int count) {
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = key(first + i);
        }
        return keys;
    }

    /** Keys number {@code first} to {@code first + count - 1}, sorted as tables and memtables order them. */
    static byte[][] sortedKeys(long first, int count) {
        byte[][] keys = keys(first, count);
        Arrays.sort(keys, Arrays::compareUnsigned);
        return keys;
    }

    /** A value of {@link #VALUE_SIZE} pseudo-random bytes. */
    static byte[] value(long seed) {
        byte[] value = new byte[VALUE_SIZE];
        new SplittableRandom(seed).nextBytes(value);
        return value;
    }

    /** SplitMix64's finalizer: a bijection on 64-bit integers. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static void putLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }
}
