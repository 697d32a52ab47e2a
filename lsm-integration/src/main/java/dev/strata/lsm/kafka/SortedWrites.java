package dev.strata.lsm.kafka;

import dev.strata.lsm.TableWriter;
import dev.strata.lsm.WriteBatch;

import java.util.Arrays;

/**
 * Writes gathered in arrival order and handed to a {@link WriteBatch} in ascending unsigned key
 * order, the last write of each key only (a null value is a delete). Strata's memtable inserts
 * a batch in key order from a finger (each key's search starts where the last one ended), so
 * a restore's changelog records, whose keys arrive in no order, cost far fewer cache misses
 * once gathered into a chunk and sorted.
 *
 * <p>The sort is a least-significant-digit radix sort on each key's first sixteen bytes (held
 * as two big-endian numbers, zero padded: the memtable's inline key prefix), one pass per byte
 * position at which the keys differ, stable; writes whose first sixteen bytes are equal (long
 * keys sharing a prefix, a key and its zero-padded extensions, a key written twice) are then
 * put in full key order by a stable comparison sort of that group alone, and of equal keys (only
 * such a group can hold them) the last write is kept, so a key written once costs no key
 * comparison at all. A comparison sort of the whole chunk reads two keys scattered in the heap
 * for each of its {@code n log n} comparisons; the passes read and write arrays in order.
 *
 * <p>Not thread safe.
 */
final class SortedWrites {
    /** Bytes counted per write on top of its key and value (the arrays' headers and references). */
    static final long ENTRY_OVERHEAD = 48;

    private byte[][] keys;
    private byte[][] values;
    private int size;
    private long approximateBytes;

    /** @param capacity the writes expected (the arrays grow past it) */
    SortedWrites(int capacity) {
        keys = new byte[Math.max(16, capacity)][];
        values = new byte[keys.length][];
    }

    /** Adds a write of {@code key} (a Strata key); a null {@code value} deletes it. */
    void add(byte[] key, byte[] value) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        keys[size] = key;
        values[size] = value;
        size++;
        approximateBytes += key.length + (value == null ? 0 : value.length) + ENTRY_OVERHEAD;
    }

    /** Writes added (a key written twice counts twice). */
    int size() {
        return size;
    }

    /** Key and value bytes held, plus {@link #ENTRY_OVERHEAD} a write. */
    long approximateBytes() {
        return approximateBytes;
    }

    /**
     * A write batch of the writes in ascending unsigned key order, the last of each key only,
     * sized for them and {@code extraOps} more (so that it never grows while filled).
     */
    WriteBatch toBatch(int extraOps) {
        int[] last = lastWrites();
        WriteBatch batch = new WriteBatch(last.length + extraOps);
        for (int w : last) {
            if (values[w] == null) {
                batch.delete(keys[w]);
            } else {
                batch.put(keys[w], values[w]);
            }
        }
        return batch;
    }

    /**
     * Adds the writes to {@code table} in ascending unsigned key order, the last of each key
     * only (a null value as a delete): what {@link TableWriter} takes, keys strictly increasing.
     *
     * @return the entries added
     */
    int writeTo(TableWriter table) {
        int[] last = lastWrites();
        for (int w : last) {
            if (values[w] == null) {
                table.delete(keys[w]);
            } else {
                table.put(keys[w], values[w]);
            }
        }
        return last.length;
    }

    /**
     * The indexes of the last write of each key, in ascending unsigned key order. Package-private
     * for tests.
     */
    int[] lastWrites() {
        int n = size;
        long[] hi = new long[n];
        long[] lo = new long[n];
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            hi[i] = prefix(keys[i], 0);
            lo[i] = prefix(keys[i], 8);
            idx[i] = i;
        }
        // One histogram per byte position (0..15, most significant first), in one pass.
        int[][] counts = new int[16][256];
        for (int i = 0; i < n; i++) {
            long h = hi[i];
            long l = lo[i];
            for (int b = 0; b < 8; b++) {
                counts[b][(int) (h >>> (56 - 8 * b)) & 0xff]++;
                counts[8 + b][(int) (l >>> (56 - 8 * b)) & 0xff]++;
            }
        }
        long[] hiTo = new long[n];
        long[] loTo = new long[n];
        int[] idxTo = new int[n];
        for (int b = 15; b >= 0; b--) {
            int[] count = counts[b];
            if (n == 0 || count[digit(hi[0], lo[0], b)] == n) {
                continue;   // every key has the same byte here: the pass would change nothing
            }
            int[] start = new int[256];
            for (int d = 1; d < 256; d++) {
                start[d] = start[d - 1] + count[d - 1];
            }
            for (int i = 0; i < n; i++) {
                int to = start[digit(hi[i], lo[i], b)]++;
                hiTo[to] = hi[i];
                loTo[to] = lo[i];
                idxTo[to] = idx[i];
            }
            long[] t = hi;
            hi = hiTo;
            hiTo = t;
            t = lo;
            lo = loTo;
            loTo = t;
            int[] ti = idx;
            idx = idxTo;
            idxTo = ti;
        }
        // Groups of equal first sixteen bytes: full keys decide, arrival order among equal keys.
        // Equal keys can only be in one group, next to each other once it is sorted: only the
        // last of them is kept (written back over idx, which the kept writes never overtake).
        int kept = 0;
        for (int i = 0; i < n; ) {
            int j = i + 1;
            while (j < n && hi[j] == hi[i] && lo[j] == lo[i]) {
                j++;
            }
            if (j - i == 1) {
                idx[kept++] = idx[i];
            } else {
                Integer[] group = new Integer[j - i];
                for (int g = 0; g < group.length; g++) {
                    group[g] = idx[i + g];
                }
                Arrays.sort(group, (a, c) -> Arrays.compareUnsigned(keys[a], keys[c]));   // stable
                for (int g = 0; g < group.length; g++) {
                    if (g + 1 < group.length && Arrays.equals(keys[group[g]], keys[group[g + 1]])) {
                        continue;   // a later write of the same key follows
                    }
                    idx[kept++] = group[g];
                }
            }
            i = j;
        }
        return kept == n ? idx : Arrays.copyOf(idx, kept);
    }

    /** Byte {@code b} (0..15) of the sixteen-byte prefix {@code hi, lo}. */
    private static int digit(long hi, long lo, int b) {
        return b < 8 ? (int) (hi >>> (56 - 8 * b)) & 0xff : (int) (lo >>> (56 - 8 * (b - 8))) & 0xff;
    }

    /** Bytes {@code from, from + 8} of {@code key} as a big-endian unsigned number, zero padded. */
    private static long prefix(byte[] key, int from) {
        long p = 0;
        int end = Math.min(from + 8, key.length);
        for (int i = from; i < end; i++) {
            p |= (key[i] & 0xffL) << (56 - 8 * (i - from));
        }
        return p;
    }
}
