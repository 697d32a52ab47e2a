package dev.strata.lsm.bench.workload;

/**
 * A pseudo-random bijection of {@code [0, n)} in constant memory: a four-round Feistel
 * network over the smallest even bit width covering n, with cycle walking to stay inside
 * the range. Fill workloads use it to write every record exactly once in random key order
 * without holding an n-element array (3M records would be 24 MB of heap per run).
 */
public final class RandomPermutation {
    private static final int ROUNDS = 4;
    private final long n;
    private final int halfBits;
    private final long halfMask;
    private final long[] roundKeys = new long[ROUNDS];

    /** A permutation of {@code [0, n)} determined by {@code seed}. */
    public RandomPermutation(long n, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("permutation of an empty range");
        }
        this.n = n;
        int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
        this.halfBits = (bits + 1) / 2;
        this.halfMask = (1L << halfBits) - 1;
        long s = seed;
        for (int i = 0; i < ROUNDS; i++) {
            s += 0x9E3779B97F4A7C15L;
            roundKeys[i] = mix(s);
        }
    }

    /** The image of {@code i}, in {@code [0, n)}. */
    public long apply(long i) {
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException("index " + i + " outside [0, " + n + ")");
        }
        // The Feistel domain is at most 4n, so the walk takes fewer than 4 steps on average.
        long x = i;
        do {
            x = encrypt(x);
        } while (x >= n);
        return x;
    }

    private long encrypt(long x) {
        long left = x >>> halfBits;
        long right = x & halfMask;
        for (long key : roundKeys) {
            long next = left ^ (mix(right ^ key) & halfMask);
            left = right;
            right = next;
        }
        return (left << halfBits) | right;
    }

    /** SplitMix64's finaliser: a cheap, well-mixed 64-bit hash. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
