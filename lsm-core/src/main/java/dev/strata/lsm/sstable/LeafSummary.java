package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;

/**
 * What a table version needs to know about one leaf without reading it: its counts for the
 * footer and, for page liveness, how many overflow pages it references. Format version 2
 * stores it in the leaf's level-1 interior cell, after the leaf page number (28 bytes, layout
 * in docs/format.md). The overflow extents a leaf references are always the
 * {@code overflowPages} pages immediately before it: the writer writes each extent while the
 * leaf is open and the leaf right after its last extent.
 *
 * @param entries internal entries in the leaf (1 to 65535)
 * @param tombstones DELETE entries among them
 * @param overflowPages pages of the overflow extents the leaf's cells reference
 * @param userBytes sum of the key and value lengths of the leaf's entries
 * @param minSeqno smallest sequence number in the leaf
 * @param maxSeqno largest sequence number in the leaf
 */
record LeafSummary(int entries, int tombstones, int overflowPages, long userBytes, long minSeqno, long maxSeqno) {
    /** Encoded size: u16 entries, u16 tombstones, u32 overflow pages, u48 user bytes, u56 min and max seqno. */
    static final int SIZE = 28;
    private static final long MAX_USER_BYTES = (1L << 48) - 1;

    /**
     * The summary of a finished leaf page of {@code encoding} (laid out as in docs/format.md);
     * overflow pages are the overflow extents' lengths rounded up to whole pages.
     */
    static LeafSummary of(byte[] page, int pageSize, LeafEncoding encoding) {
        int tombstones = 0;
        long overflowPages = 0;
        long userBytes = 0;
        long minSeqno = Long.MAX_VALUE;
        long maxSeqno = Long.MIN_VALUE;
        LeafDecoder d = new LeafDecoder(null, pageSize, Long.MAX_VALUE, encoding).reset(page, -1);
        for (d.seekToFirst(); d.valid(); d.next()) {
            LeafCell c = d.cell();
            long seqno = c.seqno();
            minSeqno = Math.min(minSeqno, seqno);
            maxSeqno = Math.max(maxSeqno, seqno);
            userBytes += c.keyLength;
            if (c.type == EntryType.DELETE) {
                tombstones++;
                continue;
            }
            userBytes += c.valueLength;
            if (!c.inline()) {
                overflowPages += ((c.valueLength & 0xffffffffL) + pageSize - 1) / pageSize;
            }
        }
        return new LeafSummary(d.count(), tombstones, (int) overflowPages, userBytes, minSeqno, maxSeqno);
    }

    /** Writes the summary at {@code off} of {@code b}. */
    void encode(byte[] b, int off) {
        if (entries < 1 || entries > 0xffff || tombstones < 0 || tombstones > entries || overflowPages < 0
                || userBytes < 0 || userBytes > MAX_USER_BYTES || minSeqno < 0 || maxSeqno < minSeqno
                || maxSeqno > InternalKeys.MAX_SEQNO) {
            throw new IllegalStateException("leaf summary out of range: " + this);
        }
        PageFormat.putShort(b, off, entries);
        PageFormat.putShort(b, off + 2, tombstones);
        PageFormat.putInt(b, off + 4, overflowPages);
        putUnsigned(b, off + 8, userBytes, 6);
        putUnsigned(b, off + 14, minSeqno, 7);
        putUnsigned(b, off + 21, maxSeqno, 7);
    }

    /**
     * Reads a summary written by {@link #encode}.
     *
     * @throws IllegalArgumentException if the fields are inconsistent
     */
    static LeafSummary decode(byte[] b, int off) {
        if (off + SIZE > b.length) {
            throw new IndexOutOfBoundsException("leaf summary at " + off + " runs past the page");
        }
        LeafSummary s = new LeafSummary(PageFormat.getShort(b, off), PageFormat.getShort(b, off + 2),
                PageFormat.getInt(b, off + 4), getUnsigned(b, off + 8, 6), getUnsigned(b, off + 14, 7),
                getUnsigned(b, off + 21, 7));
        if (s.entries < 1 || s.tombstones > s.entries || s.overflowPages < 0 || s.maxSeqno < s.minSeqno) {
            throw new IllegalArgumentException("inconsistent leaf summary " + s);
        }
        return s;
    }

    private static void putUnsigned(byte[] b, int off, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getUnsigned(byte[] b, int off, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }
}
