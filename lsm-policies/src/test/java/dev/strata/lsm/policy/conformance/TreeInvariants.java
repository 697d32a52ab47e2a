package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Structural invariants of a {@link TreeView}, whoever built it. */
final class TreeInvariants {
    private TreeInvariants() {
    }

    /**
     * Components are unique; each run is sorted by key with disjoint ranges; and for any two
     * components whose key ranges intersect, the one in the newer position (lower level,
     * then lower run index) holds only newer sequence numbers (stability). Runs in
     * O(n log n): runs are visited oldest first, and a segment tree over the compressed key
     * endpoints answers "the largest sequence number among older components overlapping
     * this range".
     *
     * @return the first problem found, or null
     */
    static String checkStructure(TreeView tree) {
        List<List<ComponentView>> runs = new ArrayList<>();
        List<Integer> runLevel = new ArrayList<>();
        Set<ComponentId> seen = new HashSet<>();
        List<byte[]> endpoints = new ArrayList<>();
        for (LevelView level : tree.levels()) {
            for (RunView run : level.runs()) {
                ComponentView previous = null;
                for (ComponentView c : run.components()) {
                    if (!seen.add(c.id())) {
                        return "component " + c.id() + " appears twice";
                    }
                    if (Arrays.compareUnsigned(c.minKey(), c.maxKey()) > 0) {
                        return c + " has minKey above maxKey";
                    }
                    if (previous != null && Arrays.compareUnsigned(previous.maxKey(), c.minKey()) >= 0) {
                        return "run in L" + level.index() + " is not sorted and disjoint: " + previous + " then " + c;
                    }
                    previous = c;
                    endpoints.add(c.minKey());
                    endpoints.add(c.maxKey());
                }
                runs.add(run.components());
                runLevel.add(level.index());
            }
        }
        endpoints.sort(Arrays::compareUnsigned);
        List<byte[]> distinct = new ArrayList<>();
        for (byte[] k : endpoints) {
            if (distinct.isEmpty() || Arrays.compareUnsigned(distinct.get(distinct.size() - 1), k) != 0) {
                distinct.add(k);
            }
        }
        byte[][] keys = distinct.toArray(new byte[0][]);
        MaxTree older = new MaxTree(Math.max(1, keys.length));
        for (int r = runs.size() - 1; r >= 0; r--) {
            for (ComponentView c : runs.get(r)) {
                int lo = Arrays.binarySearch(keys, c.minKey(), Arrays::compareUnsigned);
                int hi = Arrays.binarySearch(keys, c.maxKey(), Arrays::compareUnsigned);
                long olderMax = older.query(lo, hi);
                if (olderMax >= c.minSeqno()) {
                    return "stability broken: " + c + " in L" + runLevel.get(r) + " (seqnos " + c.minSeqno() + ".."
                            + c.maxSeqno() + ") sits above an overlapping older-positioned component holding "
                            + "seqno " + olderMax;
                }
            }
            for (ComponentView c : runs.get(r)) {
                int lo = Arrays.binarySearch(keys, c.minKey(), Arrays::compareUnsigned);
                int hi = Arrays.binarySearch(keys, c.maxKey(), Arrays::compareUnsigned);
                older.raise(lo, hi, c.maxSeqno());
            }
        }
        return null;
    }

    /** Range "raise to at least v" and range max over [0, n), without push-down. */
    private static final class MaxTree {
        private final int n;
        private final long[] max;
        private final long[] tag;

        MaxTree(int n) {
            this.n = n;
            this.max = new long[4 * n];
            this.tag = new long[4 * n];
            Arrays.fill(max, Long.MIN_VALUE);
            Arrays.fill(tag, Long.MIN_VALUE);
        }

        void raise(int lo, int hi, long v) {
            raise(1, 0, n - 1, lo, hi, v);
        }

        long query(int lo, int hi) {
            return query(1, 0, n - 1, lo, hi);
        }

        private void raise(int node, int l, int r, int lo, int hi, long v) {
            if (hi < l || r < lo) {
                return;
            }
            if (lo <= l && r <= hi) {
                tag[node] = Math.max(tag[node], v);
                max[node] = Math.max(max[node], v);
                return;
            }
            int m = (l + r) >>> 1;
            raise(2 * node, l, m, lo, hi, v);
            raise(2 * node + 1, m + 1, r, lo, hi, v);
            max[node] = Math.max(max[node], Math.max(max[2 * node], max[2 * node + 1]));
        }

        private long query(int node, int l, int r, int lo, int hi) {
            if (hi < l || r < lo) {
                return Long.MIN_VALUE;
            }
            if (lo <= l && r <= hi) {
                return max[node];
            }
            int m = (l + r) >>> 1;
            return Math.max(tag[node], Math.max(query(2 * node, l, m, lo, hi), query(2 * node + 1, m + 1, r, lo, hi)));
        }
    }
}
