package dev.strata.lsm.bench.jmh;

import java.util.SplittableRandom;

/**
 * A fixed random permutation of {@code 0 .. size-1} handed out in a cycle: the order in
 * which point benchmarks visit their keys or pages. Shuffling once in setup keeps the
 * random-number generator out of the measured code, and the fixed seed makes every run
 * probe in the same order. Not thread safe: each benchmark thread owns one.
 */
final class ProbeSequence {
    private final int[] order;
    private int cursor;

    ProbeSequence(int size, long seed) {
        if (size < 1) {
            throw new IllegalArgumentException("probe sequence needs at least one element, got " + size);
        }
        order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = size - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }

    /** The next index of the permutation, starting over after the last. */
    int next() {
        int i = order[cursor];
        if (++cursor == order.length) {
            cursor = 0;
        }
        return i;
    }
}
