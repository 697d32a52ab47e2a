package dev.strata.lsm.cache;

import java.util.Arrays;

/**
 * Admits a page image into the block cache on its second miss, not its first: TinyLFU's
 * "doorkeeper" in front of Caffeine. A first miss only sets the page's bit in a bit array; a
 * miss that finds the bit set is admitted. After as many first misses as four cache
 * capacities of pages the bits are cleared, so "second" means within that window.
 *
 * <p>Why: when the tables are many times the cache (uniform reads over a store 14 times the
 * cache at 20M records), almost every leaf read misses, and inserting each one made Caffeine
 * evict one and run its maintenance on the reader's thread, a third of the reader's CPU
 * samples against 6% for reading and decompressing the page from the OS (docs/benchmarks.md,
 * "The block cache's inserts"). A page read once is not worth caching; a page read twice in
 * the window is, and Caffeine's own frequency sketch then decides what stays.
 *
 * <p>Thread safety: the bits and the counter are read and written without synchronization.
 * A race can lose a mark (the page is admitted one miss later) or a count (the bits are
 * cleared a little later); neither affects a page's contents, only whether it is cached.
 */
final class SecondMissAdmission {
    /** Bits per page of the window: at the window's end about 1 in 16 bits is set. */
    private static final int BITS_PER_MARK = 16;
    /** The window, in cache capacities of first misses. */
    private static final int WINDOW_CAPACITIES = 4;

    private final long[] bits;
    private final long bitMask;
    private final int marksPerWindow;
    private int marks;

    /**
     * @param capacityPages how many pages the cache holds (at least 1)
     */
    SecondMissAdmission(long capacityPages) {
        long window = Math.max(1024, Math.min(1L << 24, capacityPages * WINDOW_CAPACITIES));
        long wantBits = Long.highestOneBit(window * BITS_PER_MARK - 1) << 1;
        this.bits = new long[(int) Math.max(1, wantBits >>> 6)];
        this.bitMask = wantBits - 1;
        this.marksPerWindow = (int) window;
    }

    /**
     * Whether the page of {@code hash} missed before in the window (then it is admitted);
     * marks it otherwise.
     */
    boolean admit(long hash) {
        long bit = hash & bitMask;
        int word = (int) (bit >>> 6);
        long mask = 1L << bit;
        long w = bits[word];
        if ((w & mask) != 0) {
            return true;
        }
        bits[word] = w | mask;
        if (++marks >= marksPerWindow) {
            marks = 0;
            Arrays.fill(bits, 0L);
        }
        return false;
    }

    /** Bits of the array (for tests). */
    long bitCount() {
        return bitMask + 1;
    }

    /** First misses in the window before the bits are cleared (for tests). */
    int marksPerWindow() {
        return marksPerWindow;
    }
}
