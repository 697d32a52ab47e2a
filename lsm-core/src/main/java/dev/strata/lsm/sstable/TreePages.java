package dev.strata.lsm.sstable;

import java.util.Arrays;

/**
 * Decoding of cells in verified leaf and interior pages (layout in docs/format.md).
 * An internal key inside a cell is {@code varint length, user key, u64 trailer}; the
 * trailer holds the sequence number in its high 56 bits and the entry type in the low 8.
 *
 * <ul>
 *   <li>leaf cell: internal key, then for PUT a value kind byte followed by either
 *       {@code varint length, bytes} (inline) or {@code u32 page, u32 length, u32 crc}
 *       (overflow); a DELETE cell ends after the key.</li>
 *   <li>lowest interior cell (level 1): min internal key, max internal key, u32 child page.</li>
 *   <li>upper interior cell (level 2 and up): max internal key of the subtree, u32 child page.</li>
 * </ul>
 *
 * Malformed cells surface as runtime exceptions (index out of bounds), which the reader
 * turns into a {@link dev.strata.lsm.CorruptionException} naming the page.
 */
final class TreePages {
    private TreePages() {
    }

    static int count(byte[] page) {
        return PageFormat.getInt(page, PageFormat.OFF_COUNT);
    }

    static int cellOffset(byte[] page, int i) {
        return PageFormat.getShort(page, page.length - PageFormat.SLOT_SIZE * (i + 1));
    }

    static int readVarint(byte[] b, int off) {
        int v = 0;
        for (int shift = 0; shift <= 28; shift += 7) {
            int x = b[off++];
            v |= (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
        }
        throw new IndexOutOfBoundsException("varint longer than 5 bytes");
    }

    /** Bytes taken by the internal key starting at {@code off}. */
    static int internalKeyLength(byte[] page, int off) {
        int len = readVarint(page, off);
        return PageFormat.varintSize(len) + len + 8;
    }

    /** Offset of the max internal key of the interior cell at {@code off} on {@code level}. */
    static int maxKeyOffset(byte[] page, int off, int level) {
        return level == 1 ? off + internalKeyLength(page, off) : off;
    }

    /** The child page number of the interior cell at {@code off} on {@code level}. */
    static int child(byte[] page, int off, int level) {
        int max = maxKeyOffset(page, off, level);
        return PageFormat.getInt(page, max + internalKeyLength(page, max));
    }

    /**
     * Compares the internal key at {@code off} with the target (user key, seqno):
     * negative when the cell's key sorts before the target.
     */
    static int compareKeyAt(byte[] page, int off, byte[] key, long seqno) {
        int len = readVarint(page, off);
        int start = off + PageFormat.varintSize(len);
        int c = Arrays.compareUnsigned(page, start, start + len, key, 0, key.length);
        if (c != 0) {
            return c;
        }
        long cellSeqno = PageFormat.getLong(page, start + len) >>> 8;
        return Long.compare(seqno, cellSeqno);
    }

    /** Compares only the user key at {@code off} with {@code key}. */
    static int compareUserKeyAt(byte[] page, int off, byte[] key) {
        int len = readVarint(page, off);
        int start = off + PageFormat.varintSize(len);
        return Arrays.compareUnsigned(page, start, start + len, key, 0, key.length);
    }

    /** Index of the first leaf cell whose internal key is >= the target; count if none. */
    static int searchLeaf(byte[] page, byte[] key, long seqno) {
        int lo = 0;
        int hi = count(page);
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareKeyAt(page, cellOffset(page, mid), key, seqno) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Index of the first interior cell whose max internal key is >= the target; count if none. */
    static int searchInterior(byte[] page, int level, byte[] key, long seqno) {
        return searchInterior(page, level, key, seqno, 0, count(page));
    }

    /**
     * Like {@link #searchInterior(byte[], int, byte[], long)} for a caller that knows the
     * answer lies in {@code [from, to]}: searches cells {@code [from, to)}, returns {@code to}
     * if all of them sort before the target.
     */
    static int searchInterior(byte[] page, int level, byte[] key, long seqno, int from, int to) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareKeyAt(page, maxKeyOffset(page, cellOffset(page, mid), level), key, seqno) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    static byte[] userKey(byte[] page, int off) {
        int len = readVarint(page, off);
        int start = off + PageFormat.varintSize(len);
        return Arrays.copyOfRange(page, start, start + len);
    }

    static long trailer(byte[] page, int off) {
        int len = readVarint(page, off);
        return PageFormat.getLong(page, off + PageFormat.varintSize(len) + len);
    }
}
