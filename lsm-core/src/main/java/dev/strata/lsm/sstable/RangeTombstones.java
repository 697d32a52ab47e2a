package dev.strata.lsm.sstable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * An immutable set of range tombstones ({@code deleteRange}), fragmented as RocksDB's
 * {@code FragmentedRangeTombstoneList}: the key space they cover is cut into sorted,
 * non-overlapping fragments {@code [start, end)}, each with the sequence numbers of every
 * tombstone covering it (descending). A range tombstone at sequence number {@code s} hides
 * every entry of a key in its range whose sequence number is below {@code s}, from readers
 * at sequence number {@code s} or later.
 *
 * <p>Memtables hold one (replaced as a whole when a tombstone is added), table readers load
 * one from the table's range-tombstone extent ({@link RangeTombstoneExtent}), and a read or a
 * merge unites those of its sources. Lookups are a binary search over the fragments; the empty
 * set ({@link #EMPTY}) answers at once, so a read path without range deletes pays one check.
 *
 * <p>Thread safe (immutable); the key arrays are never handed out for modification.
 */
public final class RangeTombstones {
    /** One range tombstone: keys in {@code [from, to)} deleted at {@code seqno}. */
    public record Tombstone(byte[] from, byte[] to, long seqno) {
        @Override
        public String toString() {
            return "[" + InternalKeys.describe(from) + ", " + InternalKeys.describe(to) + ")@" + seqno;
        }
    }

    /** The set without tombstones. */
    public static final RangeTombstones EMPTY = new RangeTombstones(new byte[0][], new byte[0][], new long[0][]);

    private final byte[][] starts;
    private final byte[][] ends;
    /** Per fragment, the sequence numbers of the tombstones covering it, descending, no repeats. */
    private final long[][] seqnos;

    private RangeTombstones(byte[][] starts, byte[][] ends, long[][] seqnos) {
        this.starts = starts;
        this.ends = ends;
        this.seqnos = seqnos;
    }

    /** The fragmented set of {@code tombstones} (in any order; empty ranges are ignored). */
    public static RangeTombstones of(List<Tombstone> tombstones) {
        List<Tombstone> ts = new ArrayList<>(tombstones.size());
        for (Tombstone t : tombstones) {
            if (Arrays.compareUnsigned(t.from(), t.to()) < 0) {
                ts.add(t);
            }
        }
        if (ts.isEmpty()) {
            return EMPTY;
        }
        ts.sort((a, b) -> Arrays.compareUnsigned(a.from(), b.from()));
        List<byte[]> bounds = new ArrayList<>(ts.size() * 2);
        for (Tombstone t : ts) {
            bounds.add(t.from());
            bounds.add(t.to());
        }
        bounds.sort(Arrays::compareUnsigned);
        List<byte[]> s = new ArrayList<>();
        List<byte[]> e = new ArrayList<>();
        List<long[]> q = new ArrayList<>();
        List<Tombstone> active = new ArrayList<>();
        int next = 0;
        byte[] prevBound = null;
        for (int i = 0; i < bounds.size(); i++) {
            byte[] b = bounds.get(i);
            if (prevBound != null && Arrays.equals(prevBound, b)) {
                continue;
            }
            prevBound = b;
            active.removeIf(t -> Arrays.compareUnsigned(t.to(), b) <= 0);
            while (next < ts.size() && Arrays.compareUnsigned(ts.get(next).from(), b) <= 0) {
                active.add(ts.get(next++));
            }
            if (active.isEmpty()) {
                continue;
            }
            // The fragment runs from b to the next distinct bound.
            int j = i + 1;
            while (Arrays.equals(bounds.get(j), b)) {
                j++;
            }
            byte[] end = bounds.get(j);
            long[] seqs = descendingDistinct(active);
            int last = s.size() - 1;
            if (last >= 0 && Arrays.equals(e.get(last), b) && Arrays.equals(q.get(last), seqs)) {
                e.set(last, end); // same tombstones on both sides of b: one fragment
            } else {
                s.add(b);
                e.add(end);
                q.add(seqs);
            }
        }
        return new RangeTombstones(s.toArray(new byte[0][]), e.toArray(new byte[0][]), q.toArray(new long[0][]));
    }

    /** The sequence numbers of {@code ts}, descending, each once. */
    private static long[] descendingDistinct(List<Tombstone> ts) {
        long[] a = new long[ts.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = ts.get(i).seqno();
        }
        Arrays.sort(a);
        long[] out = new long[a.length];
        int n = 0;
        for (int i = a.length - 1; i >= 0; i--) {
            if (n == 0 || a[i] != out[n - 1]) {
                out[n++] = a[i];
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** The union of {@code sets}. */
    public static RangeTombstones union(List<RangeTombstones> sets) {
        List<Tombstone> all = new ArrayList<>();
        int nonEmpty = 0;
        RangeTombstones only = EMPTY;
        for (RangeTombstones r : sets) {
            if (!r.isEmpty()) {
                nonEmpty++;
                only = r;
                all.addAll(r.tombstones());
            }
        }
        return nonEmpty <= 1 ? only : of(all);
    }

    /** This set with one more tombstone (an empty range changes nothing). */
    public RangeTombstones with(byte[] from, byte[] to, long seqno) {
        if (Arrays.compareUnsigned(from, to) >= 0) {
            return this;
        }
        List<Tombstone> all = new ArrayList<>(tombstones());
        all.add(new Tombstone(from.clone(), to.clone(), seqno));
        return of(all);
    }

    public boolean isEmpty() {
        return starts.length == 0;
    }

    /** Number of fragments. */
    public int fragmentCount() {
        return starts.length;
    }

    /**
     * Every (fragment, sequence number) pair as a tombstone, sorted by start key, then
     * sequence number descending: non-overlapping but for tombstones of the same fragment.
     */
    public List<Tombstone> tombstones() {
        List<Tombstone> out = new ArrayList<>();
        for (int i = 0; i < starts.length; i++) {
            for (long s : seqnos[i]) {
                out.add(new Tombstone(starts[i], ends[i], s));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** The index of the fragment covering {@code key}, or -1. */
    private int fragment(byte[] key) {
        int lo = 0;
        int hi = starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(starts[mid], key) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && Arrays.compareUnsigned(key, ends[found]) < 0 ? found : -1;
    }

    /**
     * The largest sequence number at most {@code readSeqno} of a tombstone covering
     * {@code key}, or 0 when none: an entry of {@code key} with a smaller sequence number is
     * deleted for a reader at {@code readSeqno}.
     */
    public long coveringSeqno(byte[] key, long readSeqno) {
        if (starts.length == 0) {
            return 0;
        }
        int f = fragment(key);
        if (f < 0) {
            return 0;
        }
        for (long s : seqnos[f]) {
            if (s <= readSeqno) {
                return s;
            }
        }
        return 0;
    }

    /**
     * A fragment and one of its tombstones' sequence numbers.
     *
     * @param start first key of the fragment
     * @param end first key after it
     * @param seqno the sequence number
     */
    public record Fragment(byte[] start, byte[] end, long seqno) {
    }

    /**
     * The fragment covering {@code key} with its newest sequence number at most
     * {@code readSeqno}, or null when none covers the key for that reader.
     */
    public Fragment covering(byte[] key, long readSeqno) {
        if (starts.length == 0) {
            return null;
        }
        int f = fragment(key);
        if (f < 0) {
            return null;
        }
        for (long s : seqnos[f]) {
            if (s <= readSeqno) {
                return new Fragment(starts[f], ends[f], s);
            }
        }
        return null;
    }

    /** Whether the entry of {@code key} at {@code seqno} is deleted for a reader at {@code readSeqno}. */
    public boolean covers(byte[] key, long seqno, long readSeqno) {
        return starts.length != 0 && seqno < coveringSeqno(key, readSeqno);
    }

    /**
     * The smallest sequence number above {@code seqno} of a tombstone covering {@code key}, or
     * -1 when none covers that entry.
     */
    public long lowestCoveringAbove(byte[] key, long seqno) {
        if (starts.length == 0) {
            return -1;
        }
        int f = fragment(key);
        if (f < 0) {
            return -1;
        }
        long best = -1;
        for (long s : seqnos[f]) {
            if (s > seqno) {
                best = s;
            } else {
                break;
            }
        }
        return best;
    }

    /** The tombstones at or below {@code readSeqno} (what a reader there sees). */
    public RangeTombstones visibleAt(long readSeqno) {
        return filter((from, seqs) -> {
            int n = 0;
            while (n < seqs.length && seqs[n] > readSeqno) {
                n++;
            }
            return Arrays.copyOfRange(seqs, n, seqs.length);
        });
    }

    /**
     * What a flush or merge output keeps of this set: per fragment, the newest tombstone of
     * each snapshot stripe ({@code stripe} maps a sequence number to its stripe, as
     * {@code VersionRetention#stripe}), none of stripe 0 when {@code dropLowestStripe} (a
     * bottommost output: nothing below can hold a key it covers and no snapshot needs it).
     */
    public RangeTombstones retained(LongUnaryOperator stripe, boolean dropLowestStripe) {
        return filter((from, seqs) -> {
            long[] out = new long[seqs.length];
            int n = 0;
            long lastStripe = Long.MIN_VALUE;
            for (long s : seqs) {
                long st = stripe.applyAsLong(s);
                if (st != lastStripe && !(dropLowestStripe && st == 0)) {
                    out[n++] = s;
                }
                lastStripe = st;
            }
            return Arrays.copyOf(out, n);
        });
    }

    private interface SeqFilter {
        long[] apply(byte[] from, long[] seqs);
    }

    private RangeTombstones filter(SeqFilter f) {
        if (starts.length == 0) {
            return this;
        }
        List<Tombstone> out = new ArrayList<>();
        boolean changed = false;
        for (int i = 0; i < starts.length; i++) {
            long[] kept = f.apply(starts[i], seqnos[i]);
            changed |= kept.length != seqnos[i].length;
            for (long s : kept) {
                out.add(new Tombstone(starts[i], ends[i], s));
            }
        }
        return changed ? of(out) : this;
    }

    /** This set clipped to {@code [from, to)} (null: unbounded on that side). */
    public RangeTombstones clip(byte[] from, byte[] to) {
        if (starts.length == 0 || (from == null && to == null)) {
            return this;
        }
        List<Tombstone> out = new ArrayList<>();
        for (Tombstone t : tombstones()) {
            byte[] a = from != null && Arrays.compareUnsigned(t.from(), from) < 0 ? from : t.from();
            byte[] b = to != null && Arrays.compareUnsigned(t.to(), to) > 0 ? to : t.to();
            if (Arrays.compareUnsigned(a, b) < 0) {
                out.add(new Tombstone(a, b, t.seqno()));
            }
        }
        return of(out);
    }

    /** The smallest key covered; only when not empty. */
    public byte[] smallestKey() {
        return starts[0];
    }

    /** The end (exclusive) of the last fragment; only when not empty. */
    public byte[] endKey() {
        return ends[ends.length - 1];
    }

    /**
     * The largest key a table holding this set must count in its key bounds (inclusive): the
     * end key's predecessor when it has one of finite length (the end is {@code k + 0x00}, the
     * immediate successor of {@code k}), else the end key itself, which over-covers by one key
     * (safe: wider bounds only make reads and merges consult the table where they need not).
     */
    public byte[] largestKeyInclusive() {
        return predecessorOrSelf(endKey());
    }

    /** {@code k} without its last byte when that byte is 0 (the key just before {@code k}), else {@code k}. */
    public static byte[] predecessorOrSelf(byte[] k) {
        return k.length > 0 && k[k.length - 1] == 0 ? Arrays.copyOf(k, k.length - 1) : k;
    }

    /** The immediate successor of {@code k}: {@code k} followed by a 0 byte. */
    public static byte[] successor(byte[] k) {
        return Arrays.copyOf(k, k.length + 1);
    }

    /** Smallest sequence number in the set; only when not empty. */
    public long minSeqno() {
        long m = Long.MAX_VALUE;
        for (long[] s : seqnos) {
            m = Math.min(m, s[s.length - 1]);
        }
        return m;
    }

    /** Largest sequence number in the set; 0 when empty. */
    public long maxSeqno() {
        long m = 0;
        for (long[] s : seqnos) {
            m = Math.max(m, s[0]);
        }
        return m;
    }

    /** Bytes the set holds (keys and sequence numbers), for memory accounting. */
    public long approximateBytes() {
        long b = 0;
        for (int i = 0; i < starts.length; i++) {
            b += starts[i].length + ends[i].length + 8L * seqnos[i].length + 48;
        }
        return b;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RangeTombstones r) || r.starts.length != starts.length) {
            return false;
        }
        for (int i = 0; i < starts.length; i++) {
            if (!Arrays.equals(starts[i], r.starts[i]) || !Arrays.equals(ends[i], r.ends[i])
                    || !Arrays.equals(seqnos[i], r.seqnos[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < starts.length; i++) {
            h = 31 * h + Arrays.hashCode(starts[i]) * 7 + Arrays.hashCode(ends[i]) + Arrays.hashCode(seqnos[i]);
        }
        return h;
    }

    @Override
    public String toString() {
        return tombstones().toString();
    }
}
