package dev.strata.lsm.sstable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A bloom filter over user keys. Filters this code builds are cache-line blocked (extent
 * version 2): a key's k probes all fall into one 512-bit block chosen by the hash's high 32
 * bits, and the probe positions come from its low 32 bits by repeated multiplication (the
 * scheme of RocksDB's FastLocalBloom), so building and probing touch one cache line per key
 * and need no division. Filters of extent version 1 — a standard filter whose k probes are
 * spread over the whole bit array by double hashing (Kirsch and Mitzenmacher) — are still
 * read, probed and extended in place. Serialized as described in docs/format.md. Immutable
 * once built; {@link #mightContain} is thread safe.
 */
public final class BloomFilter {
    /** The extent version this code writes: blocked. */
    static final int FORMAT_VERSION = 2;
    /** The extent version of standard (unblocked) filters, still read. */
    static final int FORMAT_VERSION_STANDARD = 1;
    static final int HEADER_SIZE = 16;
    /** Bits per block of a blocked filter: one 64-byte cache line. */
    static final int BLOCK_BITS = 512;
    /** Filters of at least this many keys are built by two threads. */
    static final int PARALLEL_BUILD_KEYS = 1 << 18;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final int GOLDEN32 = 0x9E3779B9;

    private final long[] words;
    private final long numBits;
    private final int numHashes;
    private final boolean blocked;
    private final long numBlocks;

    private BloomFilter(long[] words, int numHashes, boolean blocked) {
        this.words = words;
        this.numBits = (long) words.length * 64;
        this.numHashes = numHashes;
        this.blocked = blocked;
        this.numBlocks = numBits / BLOCK_BITS;
    }

    /** Whether the filter is cache-line blocked (extent version 2) rather than standard (version 1). */
    public boolean blocked() {
        return blocked;
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

    /** Theoretical false-positive rate (1 - e^(-kn/m))^k of a standard filter. */
    public static double expectedFalsePositiveRate(long keys, long bits, int hashes) {
        return Math.pow(1 - Math.exp(-(double) hashes * keys / bits), hashes);
    }

    /**
     * Theoretical false-positive rate of a blocked filter: a block's load is Poisson with
     * mean λ = 512 · keys / bits, and a block holding j keys answers yes with probability
     * (1 − e^(−k·j/512))^k. Above a standard filter's rate (about 0.95% against 0.82% at 10
     * bits per key and k = 7), the price of one cache line per probe.
     */
    public static double expectedBlockedFalsePositiveRate(long keys, long bits, int hashes) {
        double lambda = (double) BLOCK_BITS * keys / bits;
        double rate = 0;
        double p = Math.exp(-lambda); // Poisson(j = 0)
        int top = (int) Math.ceil(lambda + 12 * Math.sqrt(lambda) + 12);
        for (int j = 0; j <= top; j++) {
            if (j > 0) {
                p *= lambda / j;
            }
            rate += p * Math.pow(1 - Math.exp(-(double) hashes * j / BLOCK_BITS), hashes);
        }
        return rate;
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
        BloomFilter f = empty(count, capacity, bitsPerKey);
        for (int i = 0; i < count; i++) {
            f.add(hashes[i]);
        }
        return f;
    }

    /** An empty blocked filter sized for {@code capacity} keys, to hold {@code count} of them. */
    private static BloomFilter empty(int count, long capacity, int bitsPerKey) {
        if (capacity < count) {
            throw new IllegalArgumentException("bloom capacity " + capacity + " is below the " + count + " keys");
        }
        long bits = Math.max(BLOCK_BITS, capacity * bitsPerKey);
        long wordCount = (bits + BLOCK_BITS - 1) / BLOCK_BITS * (BLOCK_BITS / 64);
        if (wordCount > Integer.MAX_VALUE / 8 - HEADER_SIZE) {
            throw new IllegalArgumentException("bloom filter for " + capacity + " keys at " + bitsPerKey
                    + " bits per key is too large");
        }
        return new BloomFilter(new long[(int) wordCount], optimalHashes(bitsPerKey), true);
    }

    /**
     * {@link #build(long[], int, long, int)} from hashes kept in chunks: the first {@code
     * count} of them, chunk after chunk, each chunk full but the last.
     */
    static BloomFilter build(long[][] chunks, int count, long capacity, int bitsPerKey) {
        BloomFilter f = empty(count, capacity, bitsPerKey);
        if (count < PARALLEL_BUILD_KEYS || Runtime.getRuntime().availableProcessors() < 2) {
            f.addBlocks(chunks, count, 0, Integer.MAX_VALUE);
            return f;
        }
        // Two threads, each setting the bits of one half of the blocks (disjoint words): the
        // build is bound by cache misses, and a table's builder has nothing else to do here.
        // Whoever comes first takes the upper half, so a busy pool never delays the build.
        int midWord = (int) (f.numBlocks / 2) << 3;
        AtomicBoolean upperTaken = new AtomicBoolean();
        CompletableFuture<Void> upper = CompletableFuture.runAsync(() -> {
            if (upperTaken.compareAndSet(false, true)) {
                f.addBlocks(chunks, count, midWord, Integer.MAX_VALUE);
            }
        }, ForkJoinPool.commonPool());
        f.addBlocks(chunks, count, 0, midWord);
        if (upperTaken.compareAndSet(false, true)) {
            f.addBlocks(chunks, count, midWord, Integer.MAX_VALUE);
        } else {
            upper.join();
        }
        return f;
    }

    /** Adds the hashes among the first {@code count} of {@code chunks} whose block starts in words [from, to). */
    private void addBlocks(long[][] chunks, int count, int fromWord, int toWord) {
        int left = count;
        for (int c = 0; left > 0; c++) {
            long[] chunk = chunks[c];
            int n = Math.min(left, chunk.length);
            for (int i = 0; i < n; i++) {
                long h = chunk[i];
                int base = blockWord(h);
                if (base >= fromWord && base < toWord) {
                    setBlockBits(base, h);
                }
            }
            left -= n;
        }
    }

    /** A mutable copy of this filter, for a table version that adds keys to it. */
    BloomFilter copyForAppend() {
        return new BloomFilter(words.clone(), numHashes, blocked);
    }

    /** Sets the bits of the key with hash {@code h}; only on a filter not yet shared. */
    void add(long h) {
        if (blocked) {
            setBlockBits(blockWord(h), h);
            return;
        }
        long delta = Long.rotateLeft(h, 31) | 1;
        for (int i = 0; i < numHashes; i++) {
            long bit = Long.remainderUnsigned(h, numBits);
            words[(int) (bit >>> 6)] |= 1L << bit;
            h += delta;
        }
    }

    private void setBlockBits(int base, long h) {
        int x = (int) h;
        for (int i = 0; i < numHashes; i++) {
            int bit = x >>> 23; // the top 9 bits: a position in the 512-bit block
            words[base + (bit >>> 6)] |= 1L << bit;
            x *= GOLDEN32;
        }
    }

    /** False means the key is certainly absent; true means it may be present. */
    public boolean mightContain(byte[] key) {
        return mightContainHash(hash(key));
    }

    boolean mightContainHash(long h) {
        if (blocked) {
            int base = blockWord(h);
            int x = (int) h;
            for (int i = 0; i < numHashes; i++) {
                int bit = x >>> 23;
                if ((words[base + (bit >>> 6)] & (1L << bit)) == 0) {
                    return false;
                }
                x *= GOLDEN32;
            }
            return true;
        }
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

    /** The first word of the block of hash {@code h}: the high 32 bits scaled to the block count (no division). */
    private int blockWord(long h) {
        long block = ((h >>> 32) * numBlocks) >>> 32;
        return (int) block << 3;
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

    /**
     * The hash a key prefix is added to the filter under: {@link #hash} of the prefix bytes
     * with a fixed tweak mixed in, so that a prefix and a whole key of the same bytes do not
     * share probes (a table holding key "ab" does not claim prefix "ab" unless a key starts
     * with it). Sharing the filter costs the point gets' false-positive rate only the load
     * of the extra prefixes, one per distinct prefix (docs/format.md, prefix bloom).
     */
    public static long prefixHash(byte[] prefix) {
        long h = hash(prefix) ^ 0x5052454649585F31L; // "PREFIX_1"
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }

    /** Whether the filter may hold the prefix {@code prefix} ({@link #prefixHash}). */
    public boolean mightContainPrefix(byte[] prefix) {
        return mightContainHash(prefixHash(prefix));
    }

    /** Serialized form: 16-byte header then the bit array as big-endian u64 words. */
    byte[] encode() {
        byte[] out = new byte[HEADER_SIZE + words.length * 8];
        out[0] = (byte) (blocked ? FORMAT_VERSION : FORMAT_VERSION_STANDARD);
        PageFormat.putShort(out, 2, numHashes);
        PageFormat.putLong(out, 8, numBits);
        for (int i = 0; i < words.length; i++) {
            PageFormat.putLong(out, HEADER_SIZE + i * 8, words[i]);
        }
        return out;
    }

    /** Decodes {@link #encode()}'s output; returns null if the bytes are not a valid filter. */
    static BloomFilter decode(byte[] in) {
        if (in.length < HEADER_SIZE + 8 || (in[0] != FORMAT_VERSION && in[0] != FORMAT_VERSION_STANDARD)) {
            return null;
        }
        boolean blocked = in[0] == FORMAT_VERSION;
        int hashes = PageFormat.getShort(in, 2);
        long bits = PageFormat.getLong(in, 8);
        if (hashes < 1 || hashes > 30 || bits <= 0 || bits % (blocked ? BLOCK_BITS : 64) != 0
                || bits / 64 != (in.length - HEADER_SIZE) / 8 || (in.length - HEADER_SIZE) % 8 != 0
                || (blocked && bits / BLOCK_BITS > 0xFFFF_FFFFL)) {
            return null;
        }
        long[] words = new long[(int) (bits / 64)];
        for (int i = 0; i < words.length; i++) {
            words[i] = PageFormat.getLong(in, HEADER_SIZE + i * 8);
        }
        return new BloomFilter(words, hashes, blocked);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BloomFilter b && b.numHashes == numHashes && b.blocked == blocked
                && Arrays.equals(b.words, words);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(words) * 31 + numHashes;
    }
}
