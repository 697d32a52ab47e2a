package dev.strata.lsm.sstable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where a table's leaves lie in key space, read from its interior pages: a sequence of
 * <em>fences</em>, each a key interval (lower, upper] with the number of leaf pages under
 * it. Built from the root down, one interior level at a time, as long as the next level's
 * pages fit a page budget: for a table whose level-1 pages fit, every fence is one leaf
 * with its exact min and max key; above that, a fence is one child subtree and carries an
 * equal share of the table's leaves (a bulk-loaded tree fills its pages evenly). Keys
 * inside a fence are assumed spread evenly over the bytes after the prefix its bounds share.
 *
 * <p>Answers what fraction of the table lies in a key range, for policies that weigh
 * overlap (see {@code TreeView.RangeEstimator}); unlike interpolating over the table's whole
 * key range it follows skewed key distributions, at the resolution of the fences. Immutable.
 */
public final class TableFences {
    /** Interior pages read below the root at most, by default. */
    public static final int DEFAULT_PAGE_BUDGET = 64;

    private final byte[][] lower;
    private final byte[][] upper;
    /** cumulative[i]: leaves under fences 0..i. */
    private final double[] cumulative;

    private TableFences(List<byte[]> lower, List<byte[]> upper, double[] weights) {
        this.lower = lower.toArray(new byte[0][]);
        this.upper = upper.toArray(new byte[0][]);
        this.cumulative = new double[weights.length];
        double sum = 0;
        for (int i = 0; i < weights.length; i++) {
            sum += weights[i];
            cumulative[i] = sum;
        }
    }

    /** One fence over [minKey, maxKey]: plain interpolation, for a table whose pages are not at hand. */
    public static TableFences uniform(byte[] minKey, byte[] maxKey) {
        return new TableFences(List.of(minKey), List.of(maxKey), new double[] {1});
    }

    /** Number of fences. */
    public int size() {
        return upper.length;
    }

    /** Leaves under all fences (for fences read from a table, its leaf count). */
    public double leaves() {
        return cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
    }

    /** Estimated fraction of the table's leaves holding keys in [from, to); null bounds are open. */
    public double fraction(byte[] from, byte[] to) {
        double total = leaves();
        if (total == 0) {
            return 0;
        }
        double a = from == null ? 0 : leavesBelow(from);
        double b = to == null ? total : leavesBelow(to);
        return Math.max(0, b - a) / total;
    }

    /** Estimated leaves holding keys smaller than {@code key}. */
    double leavesBelow(byte[] key) {
        // First fence whose upper bound is >= key.
        int lo = 0;
        int hi = upper.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(upper[mid], key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo == upper.length) {
            return leaves();
        }
        double before = lo == 0 ? 0 : cumulative[lo - 1];
        double weight = cumulative[lo] - before;
        return before + weight * position(lower[lo], upper[lo], key);
    }

    /**
     * Where {@code key} lies between {@code lo} and {@code hi}, from 0 to 1: the eight bytes
     * after their shared prefix read as a fraction.
     */
    static double position(byte[] lo, byte[] hi, byte[] key) {
        if (Arrays.compareUnsigned(key, lo) <= 0) {
            return 0;
        }
        if (Arrays.compareUnsigned(key, hi) > 0) {
            return 1;
        }
        int shared = Arrays.mismatch(lo, hi);
        if (shared < 0) {
            return 1; // lo == hi: a key above lo and not above hi is hi itself
        }
        double a = window(lo, shared);
        double b = window(hi, shared);
        double k = window(key, shared);
        if (b <= a) {
            return 0.5;
        }
        return Math.min(1, Math.max(0, (k - a) / (b - a)));
    }

    private static double window(byte[] key, int from) {
        double v = 0;
        double scale = 1.0 / 256;
        for (int i = from; i < from + 8; i++) {
            v += (i < key.length ? key[i] & 0xff : 0) * scale;
            scale /= 256;
        }
        return v;
    }

    /** Reads the fences of {@code reader}'s table, reading at most {@code pageBudget} interior pages below the root. */
    static TableFences read(SSTableReader reader, int pageBudget) throws IOException {
        Footer f = reader.footer();
        if (f.height() == 0) {
            return new TableFences(List.of(), List.of(), new double[0]);
        }
        if (f.height() == 1) {
            return uniform(f.minKey(), f.maxKey());
        }
        int level = f.height() - 1;
        List<InteriorPage> pages = List.of(reader.interiorPage(f.rootPage(), level));
        while (level > 1) {
            int children = 0;
            for (InteriorPage p : pages) {
                children += p.count();
            }
            if (children > pageBudget) {
                break;
            }
            List<InteriorPage> next = new ArrayList<>(children);
            for (InteriorPage p : pages) {
                for (int i = 0; i < p.count(); i++) {
                    next.add(reader.interiorPage(p.child(i), level - 1));
                }
            }
            pages = next;
            level--;
        }
        List<byte[]> lows = new ArrayList<>();
        List<byte[]> ups = new ArrayList<>();
        for (InteriorPage p : pages) {
            byte[] bytes = p.bytes();
            for (int i = 0; i < p.count(); i++) {
                int off = TreePages.cellOffset(bytes, i);
                byte[] max = TreePages.userKey(bytes, TreePages.maxKeyOffset(bytes, off, level));
                // A level-1 cell names its leaf's min key; above, the fence starts where the previous one ended.
                lows.add(level == 1 ? TreePages.userKey(bytes, off) : ups.isEmpty() ? f.minKey() : ups.get(ups.size() - 1));
                ups.add(max);
            }
        }
        double[] weights = new double[ups.size()];
        Arrays.fill(weights, level == 1 ? 1 : (double) f.leafCount() / ups.size());
        return new TableFences(lows, ups, weights);
    }
}
