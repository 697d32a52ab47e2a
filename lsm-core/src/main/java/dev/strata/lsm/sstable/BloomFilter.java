package dev.strata.lsm.sstable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A standard bloom filter over user keys with {@code k} probes derived from one 64-bit
 * hash by double hashing (Kirsch and Mitzenmacher). Serialized as described in
 * docs/format.md. Immutable once built; {@link #mightContain} is thread safe.
 */
public final class BloomFilter {
    static final int FORMAT_VERSION = 1;
    static final int HEADER_SIZE = 16;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;

    private final long[] words;
    private final long numBits;
    private final int numHashes;

    private BloomFilter(long[] words, int numHashes) {
        this.words = words;
        this.numBits = (long) words.length * 64;
        this.numHashes = numHashes;
    }

    /** Number of probes per key. */
    public int numHashes() {
        return numHashes;
    }

    /** Size of the bit array. */
    public long numBits() {
        return numBits;
    }

    /** The number of probes that minimizes the false-positive rate at {@code bitsPerKey}. */
    public static int optimalHashes(int bitsPerKey) {
        return Math.max(1, Math.min(30, (int) Math.round(bitsPerKey * Math.log(2))));
    }

    /** Theoretical false-positive rate (1 - e^(-kn/m))^k. */
    public static double expectedFalsePositiveRate(long keys, long bits, int hashes) {
        return Math.pow(1 - Math.exp(-(double) hashes * keys / bits), hashes);
    }

    /** Builds a filter from the 64-bit hashes ({@link #hash}) of {@code count} keys. */
    public static BloomFilter build(long[] hashes, int count, int bitsPerKey) {
        return build(hashes, count, count, bitsPerKey);
    }

    /**
     * Builds a filter sized for {@code capacity} keys ({@code capacity >= count}) from the
     * hashes of {@code count} keys: the bits beyond {@code count} keys are the reserve that
     * later keys fill ({@link #copyForAppend()}).
     */
    public static BloomFilter build(long[] hashes, int count, long capacity, int bitsPerKey) {
        if (capacity < count) {
            throw new IllegalArgumentException("bloom capacity " + capacity + " is below the " + count + " keys");
        }
        long bits = Math.max(64, capacity * bitsPerKey);
        long wordCount = (bits + 63) / 64;
        if (wordCount > Integer.MAX_VALUE / 8 - HEADER_SIZE) {
            throw new IllegalArgumentException("bloom filter for " + capacity + " keys at " + bitsPerKey
                    + " bits per key is too large");
        }
        BloomFilter f = new BloomFilter(new long[(int) wordCount], optimalHashes(bitsPerKey));
        for (int i = 0; i < count; i++) {
            f.add(hashes[i]);
        }
        return f;
    }

    /** A mutable copy of this filter, for a table version that adds keys to it. */
    BloomFilter copyForAppend() {
        return new BloomFilter(words.clone(), numHashes);
    }

    /** Sets the bits of the key with hash {@code h}; only on a filter not yet shared. */
    void add(long h) {
        long delta = Long.rotateLeft(h, 31) | 1;
        for (int i = 0; i < numHashes; i++) {
            long bit = Long.remainderUnsigned(h, numBits);
            words[(int) (bit >>> 6)] |= 1L << bit;
            h += delta;
        }
    }

    /** False means the key is certainly absent; true means it may be present. */
    public boolean mightContain(byte[] key) {
        return mightContainHash(hash(key));
    }

    boolean mightContainHash(long h) {
        long delta = Long.rotateLeft(h, 31) | 1;
        for (int i = 0; i < numHashes; i++) {
            long bit = Long.remainderUnsigned(h, numBits);
            if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
            h += delta;
        }
        return true;
    }

    /** The 64-bit key hash the filter is built from (a multiply-rotate hash with a murmur3 finalizer). */
    public static long hash(byte[] key) {
        int len = key.length;
        long h = 0x27D4EB2F165667C5L ^ (len * P1);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            long w = (long) LONG_LE.get(key, i);
            h ^= Long.rotateLeft(w * P2, 31) * P1;
            h = Long.rotateLeft(h, 27) * P1 + 0x85EBCA77C2B2AE63L;
        }
        if (i < len) {
            long w = 0;
            for (int s = 0; i < len; i++, s += 8) {
                w |= (key[i] & 0xffL) << s;
            }
            h ^= Long.rotateLeft(w * P2, 31) * P1;
            h = Long.rotateLeft(h, 27) * P1 + 0x85EBCA77C2B2AE63L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    /** Serialized form: 16-byte header then the bit array as big-endian u64 words. */
    byte[] encode() {
        byte[] out = new byte[HEADER_SIZE + words.length * 8];
        out[0] = (byte) FORMAT_VERSION;
        PageFormat.putShort(out, 2, numHashes);
        PageFormat.putLong(out, 8, numBits);
        for (int i = 0; i < words.length; i++) {
            PageFormat.putLong(out, HEADER_SIZE + i * 8, words[i]);
        }
        return out;
    }

    /** Decodes {@link #encode()}'s output; returns null if the bytes are not a valid filter. */
    static BloomFilter decode(byte[] in) {
        if (in.length < HEADER_SIZE + 8 || in[0] != FORMAT_VERSION) {
            return null;
        }
        int hashes = PageFormat.getShort(in, 2);
        long bits = PageFormat.getLong(in, 8);
        if (hashes < 1 || hashes > 30 || bits <= 0 || bits % 64 != 0 || bits / 64 != (in.length - HEADER_SIZE) / 8
                || (in.length - HEADER_SIZE) % 8 != 0) {
            return null;
        }
        long[] words = new long[(int) (bits / 64)];
        for (int i = 0; i < words.length; i++) {
            words[i] = PageFormat.getLong(in, HEADER_SIZE + i * 8);
        }
        return new BloomFilter(words, hashes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BloomFilter b && b.numHashes == numHashes && Arrays.equals(b.words, words);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(words) * 31 + numHashes;
    }
}
