package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;

import java.util.Arrays;

/**
 * A verified interior page with a search index over its cells' max keys, the form in which
 * the block cache holds interior pages. Immutable.
 *
 * <p>A binary search over the bare page touches two scattered cache lines per step (the
 * slot, then the cell), and interior pages are read by every lookup but are too many to
 * stay in the CPU caches. The index keeps, per cell, the 8 bytes of the max user key that
 * follow the prefix all of the page's max keys share, as an unsigned big-endian number
 * (zero-padded past the key's end) in one {@code long[]}. These <em>windows</em> never
 * decrease from cell to cell, and a smaller window means a smaller user key, so a search on
 * the windows leaves only the cells whose window equals the target's (usually none or one)
 * to compare in full on the page.
 */
final class InteriorPage implements BlockCache.Decoded {
    /** Object headers and fields charged on top of the page image and the windows. */
    private static final int OBJECT_OVERHEAD = 64;
    private static final int WINDOW_BYTES = Long.BYTES;

    private final byte[] bytes;
    private final int level;
    private final int count;
    /** The user-key prefix every cell's max key starts with; null when not indexed. */
    private final byte[] sharedPrefix;
    /** Per cell, the window of its max user key after {@link #sharedPrefix}; null when not indexed. */
    private final long[] windows;
    /**
     * Per cell, its child page number, read once when indexing (a lookup takes one child per
     * page, and finding it in the cell means parsing the cell's keys); null when not indexed.
     */
    private final int[] children;

    private InteriorPage(byte[] bytes, int level, byte[] sharedPrefix, long[] windows, int[] children) {
        this.bytes = bytes;
        this.level = level;
        this.count = TreePages.count(bytes);
        this.sharedPrefix = sharedPrefix;
        this.windows = windows;
        this.children = children;
    }

    /**
     * Indexes a verified interior page (header and slots checked).
     *
     * @throws IndexOutOfBoundsException if a cell is malformed
     */
    static InteriorPage indexed(byte[] bytes, int level) {
        int count = TreePages.count(bytes);
        int[] keyStart = new int[count];
        int[] keyEnd = new int[count];
        for (int i = 0; i < count; i++) {
            int off = TreePages.maxKeyOffset(bytes, TreePages.cellOffset(bytes, i), level);
            int len = TreePages.readVarint(bytes, off);
            int start = off + PageFormat.varintSize(len);
            if (len < 0 || start + len + Long.BYTES + Integer.BYTES > bytes.length) {
                throw new IndexOutOfBoundsException("max key of cell " + i + " (length " + len
                        + ") or its child number runs past the end of the page");
            }
            keyStart[i] = start;
            keyEnd[i] = start + len;
        }
        // Cells are in key order, so the first and last max keys share what all of them share.
        int shared = Arrays.mismatch(bytes, keyStart[0], keyEnd[0], bytes, keyStart[count - 1], keyEnd[count - 1]);
        if (shared < 0) {
            shared = keyEnd[0] - keyStart[0];
        }
        byte[] sharedPrefix = Arrays.copyOfRange(bytes, keyStart[0], keyStart[0] + shared);
        long[] windows = new long[count];
        int[] children = new int[count];
        for (int i = 0; i < count; i++) {
            windows[i] = window(bytes, keyStart[i] + shared, keyEnd[i]);
            // The child number follows the max key's 8-byte trailer (TreePages.child).
            children[i] = PageFormat.getInt(bytes, keyEnd[i] + Long.BYTES);
        }
        return new InteriorPage(bytes, level, sharedPrefix, windows, children);
    }

    /** A verified interior page without an index, for a lookup that will not reuse it. */
    static InteriorPage unindexed(byte[] bytes, int level) {
        return new InteriorPage(bytes, level, null, null, null);
    }

    /** The page image; must not be modified. */
    byte[] bytes() {
        return bytes;
    }

    int count() {
        return count;
    }

    /** The child page number of cell {@code i}. */
    int child(int i) {
        return children != null ? children[i] : TreePages.child(bytes, TreePages.cellOffset(bytes, i), level);
    }

    /**
     * Index of the first cell whose max internal key is >= (userKey, seqno); {@link #count()}
     * if none. The same answer as {@link TreePages#searchInterior} on the page.
     */
    int search(byte[] userKey, long seqno) {
        if (windows == null) {
            return TreePages.searchInterior(bytes, level, userKey, seqno);
        }
        int shared = sharedPrefix.length;
        int n = Math.min(shared, userKey.length);
        int c = Arrays.compareUnsigned(userKey, 0, n, sharedPrefix, 0, n);
        if (c < 0 || (c == 0 && userKey.length < shared)) {
            return 0;
        }
        if (c > 0) {
            return count;
        }
        long target = window(userKey, shared, userKey.length);
        // Cells before `from` have smaller user keys than the target, cells from `to` on larger ones.
        int from = firstWindow(target, 0, false);
        int to = firstWindow(target, from, true);
        return from == to ? from : TreePages.searchInterior(bytes, level, userKey, seqno, from, to);
    }

    /**
     * Index, at or after {@code start}, of the first window >= {@code target} (> when
     * {@code above}), comparing unsigned; {@link #count()} if none.
     */
    private int firstWindow(long target, int start, boolean above) {
        int lo = start;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(windows[mid], target);
            if (c < 0 || (above && c == 0)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Bytes {@code [from, from + 8)} of {@code b} as an unsigned big-endian number, bytes at or past {@code end} read as 0. */
    private static long window(byte[] b, int from, int end) {
        long w = 0;
        for (int i = from; i < from + WINDOW_BYTES; i++) {
            w = (w << 8) | (i < end ? b[i] & 0xff : 0);
        }
        return w;
    }

    @Override
    public int weightBytes() {
        int indexBytes = windows == null ? 0 : windows.length * (WINDOW_BYTES + Integer.BYTES) + sharedPrefix.length;
        return bytes.length + indexBytes + OBJECT_OVERHEAD;
    }
}
