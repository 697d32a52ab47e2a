package dev.strata.lsm.policy.spooky;

/**
 * The reference model of Spooky's rule on bytes per level (FAMILIES.md §1.9): no key ranges,
 * no files. α flushes in level 0 go to the smallest q &lt; X with N_0 + … + N_q &lt; C_q, else
 * into X (the whole of levels 0..X rewritten); N_X ≥ C_X starts a pass into z (the smallest
 * level with N_X + … + N_z &lt; C_z, else L) that rewrites all of levels X..z (under uniform
 * keys every group receives data); after a pass N_L ≥ C_L adds a level by a free move, and
 * N_L &lt; C_L / T removes one when level L−1 is empty; C_L is stored (T·α·B at first) and
 * C_i = N_L / T^(L−i) below it, N_L taken when a pass began. Decisions are made after every
 * flush until none is left, a pass's start and a merge out of level 0 on the same sizes.
 *
 * <p>Unique inserts ({@code uniqueBytes} = 0): a merge writes the sum of its inputs. Uniform
 * updates of a key space of {@code uniqueBytes} (issue 33, SP2 restated on the updates
 * phase): every level, and every level-0 file, holds a uniform random share of the keys, its
 * bytes ÷ {@code uniqueBytes}, so a merge keeps 1 − Π(1 − p_i) of the key space — the rule
 * {@code KeyRangeSimulator} applies to key densities. A flush of {@code b} bytes holds
 * {@code b} bytes of distinct keys (the memtable keeps one version of each).
 */
final class SpookyByteModel {
    private final int t;
    private final int xOffset;
    private final int alpha;
    private final double uniqueBytes;
    /** Whether flushes update keys already inserted (from {@link #startUpdates()}, or from the start). */
    private boolean updating;
    private final double[] n = new double[32];
    /** Π over level-0 files of (1 − file ÷ uniqueBytes): the share of keys level 0 misses. */
    private double level0Misses = 1;
    private int level0Files;
    private double written;
    private double flushed;
    private final double[] writtenInto = new double[32];
    private int capacityLevel;
    private double capacityBytes;
    private double memtable;
    private boolean passActive;
    private int passTarget;
    private double passBasis;

    /**
     * A model with an empty tree.
     *
     * @param t           the size ratio T
     * @param xOffset     X = max(1, L − xOffset); 0 is Full Merge
     * @param alpha       level-0 files that trigger a merge out of level 0
     * @param uniqueBytes the key space's bytes under uniform updates, 0 for unique inserts
     */
    SpookyByteModel(int t, int xOffset, int alpha, double uniqueBytes) {
        this.t = t;
        this.xOffset = xOffset;
        this.alpha = alpha;
        this.uniqueBytes = uniqueBytes;
        this.updating = uniqueBytes > 0;
    }

    /**
     * A model whose first flushes insert unique keys (merges add up) until
     * {@link #startUpdates()}, from when flushes update a key space of {@code uniqueBytes}.
     *
     * @param t           the size ratio T
     * @param xOffset     X = max(1, L − xOffset)
     * @param alpha       level-0 files that trigger a merge out of level 0
     * @param uniqueBytes the key space's bytes the fill inserts
     * @return the model
     */
    static SpookyByteModel fillThenUpdates(int t, int xOffset, int alpha, double uniqueBytes) {
        SpookyByteModel m = new SpookyByteModel(t, xOffset, alpha, uniqueBytes);
        m.updating = false;
        return m;
    }

    /**
     * From now on flushes update the key space: merges keep one version per key. Level 0's
     * files and the levels, disjoint after unique inserts, are treated as uniform random
     * shares of the keys from here on.
     */
    void startUpdates() {
        if (uniqueBytes <= 0) {
            throw new IllegalStateException("a model of unique inserts has no key space to update");
        }
        updating = true;
    }

    /** Merge bytes written so far. */
    double written() {
        return written;
    }

    /** Flushed bytes so far. */
    double flushed() {
        return flushed;
    }

    /** Merge bytes ÷ flushed bytes so far: the paper's {@code WA_model}. */
    double waModel() {
        return written / flushed;
    }

    /** Merge bytes written into {@code level} so far. */
    double writtenInto(int level) {
        return writtenInto[level];
    }

    /** The bytes of {@code level}. */
    double bytes(int level) {
        return n[level];
    }

    /** The deepest level holding data (1 for an empty tree). */
    int largest() {
        int deepest = 1;
        for (int i = 1; i < n.length; i++) {
            if (n[i] > 0) {
                deepest = i;
            }
        }
        return deepest;
    }

    private int x() {
        return Math.max(1, largest() - xOffset);
    }

    private double capacity(int level) {
        int largest = largest();
        if (level >= largest) {
            return capacityBytes * Math.pow(t, largest - capacityLevel);
        }
        double basis = passActive ? passBasis : n[largest];
        if (basis == 0) {
            basis = capacityBytes * Math.pow(t, largest - capacityLevel);
        }
        return Math.max(1, Math.floor(basis * Math.pow(t, level - largest)));
    }

    /**
     * One flush of {@code bytes} into level 0, then the rule's decisions until none is left.
     *
     * @param bytes the flushed table's bytes
     */
    void flush(double bytes) {
        n[0] += bytes;
        level0Files++;
        if (uniqueBytes > 0) {
            level0Misses *= 1 - Math.min(1, bytes / uniqueBytes);
        }
        flushed += bytes;
        memtable = Math.max(memtable, bytes);
        if (capacityLevel == 0) {
            capacityLevel = 1;
            capacityBytes = (double) t * alpha * memtable;
        }
        while (decide()) {
            // one decision round after another until the rule asks for nothing
        }
    }

    /** One round; true if it did something. */
    private boolean decide() {
        int largest = largest();
        int x = x();
        if (passActive && passFinished(x)) {
            passActive = false;
        }
        if (!passActive && n[largest] > 0) { // evolution (§1.2), a free move
            double cl = capacity(largest);
            if (n[largest] >= cl) {
                n[largest + 1] = n[largest];
                n[largest] = 0;
                return true;
            }
            if (largest >= 2 && n[largest] < cl / t && n[largest - 1] == 0) {
                n[largest - 1] = n[largest];
                n[largest] = 0;
                return true;
            }
        }
        // Both merges are decided on the sizes before either runs.
        Runnable pass = partitioned(x, largest);
        Runnable upper = level0(x, largest);
        if (pass != null) {
            pass.run();
        }
        if (upper != null) {
            upper.run();
        }
        return pass != null || upper != null;
    }

    private boolean passFinished(int x) {
        int z = Math.min(passTarget, largest());
        for (int i = x; i < z; i++) {
            if (n[i] > 0) {
                return false;
            }
        }
        return true;
    }

    private Runnable partitioned(int x, int largest) {
        if (x >= largest) {
            return null;
        }
        if (!passActive) {
            if (n[x] == 0 || n[x] < capacity(x)) {
                return null;
            }
            int z = largest;
            double sum = n[x];
            for (int q = x + 1; q < largest; q++) {
                sum += n[q];
                if (sum < capacity(q)) {
                    z = q;
                    break;
                }
            }
            passActive = true;
            passTarget = z;
            passBasis = n[largest];
        }
        int z = Math.min(passTarget, largest);
        if (z <= x) {
            passActive = false;
            return null;
        }
        boolean levelsAboveEmpty = true;
        for (int i = x; i < z; i++) {
            levelsAboveEmpty &= n[i] == 0;
        }
        if (levelsAboveEmpty) {
            return null; // the pass is over; the next round ends it
        }
        return () -> rewrite(x, z, 1);
    }

    private Runnable level0(int x, int largest) {
        if (level0Files < alpha) {
            return null;
        }
        double sum = n[0];
        for (int q = 1; q < x; q++) {
            sum += n[q];
            if (sum < capacity(q)) {
                int target = q;
                return () -> mergeInto(target);
            }
        }
        if (passActive) {
            return null; // merges into X wait for the pass
        }
        return () -> mergeInto(x);
    }

    private void mergeInto(int q) {
        rewrite(0, q, level0Misses);
        level0Files = 0;
        level0Misses = 1;
    }

    /**
     * Merges levels {@code from..to} into {@code to}; {@code misses} is the share of keys
     * level {@code from} misses when it is level 0 (its files overlap), else 1.
     */
    private void rewrite(int from, int to, double misses) {
        double sum = 0;
        double miss = from == 0 ? misses : 1;
        for (int i = from; i <= to; i++) {
            sum += n[i];
            if (i > 0 || from > 0) {
                miss *= 1 - Math.min(1, n[i] / Math.max(uniqueBytes, Double.MIN_VALUE));
            }
            n[i] = 0;
        }
        double out = updating ? uniqueBytes * (1 - miss) : sum;
        n[to] = out;
        written += out;
        writtenInto[to] += out;
    }
}
