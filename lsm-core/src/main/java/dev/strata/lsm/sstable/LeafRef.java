package dev.strata.lsm.sstable;

import java.util.Arrays;

/**
 * A leaf as its level-1 interior cell describes it: its page, its first and last internal
 * keys and (format version 2) its {@link LeafSummary}. A table version being merged in place
 * classifies its leaves as clean or dirty from these alone, and references a clean leaf in
 * the new version by copying its cell. Immutable.
 *
 * @param page the leaf's page number
 * @param minKey user key of the leaf's first cell
 * @param minKeySeqno sequence number of the leaf's first cell
 * @param maxKey user key of the leaf's last cell
 * @param maxKeySeqno sequence number of the leaf's last cell
 * @param encodedMinKey the first cell's internal key as encoded in the interior cell
 * @param encodedMaxKey the last cell's internal key as encoded in the interior cell
 * @param summary the leaf's counts
 */
record LeafRef(int page, byte[] minKey, long minKeySeqno, byte[] maxKey, long maxKeySeqno, byte[] encodedMinKey,
               byte[] encodedMaxKey, LeafSummary summary) {

    /** Reads the level-1 cell at {@code off} of a verified format-2 interior page. */
    static LeafRef fromCell(byte[] page, int off) {
        int minLen = TreePages.internalKeyLength(page, off);
        int maxOff = off + minLen;
        int maxLen = TreePages.internalKeyLength(page, maxOff);
        int child = PageFormat.getInt(page, maxOff + maxLen);
        LeafSummary summary = LeafSummary.decode(page, maxOff + maxLen + 4);
        return new LeafRef(child, TreePages.userKey(page, off), TreePages.trailer(page, off) >>> 8,
                TreePages.userKey(page, maxOff), TreePages.trailer(page, maxOff) >>> 8,
                Arrays.copyOfRange(page, off, off + minLen), Arrays.copyOfRange(page, maxOff, maxOff + maxLen), summary);
    }

    /** Pages of the file this leaf holds on to: its overflow extents (just before it) and itself. */
    int firstReferencedPage() {
        return page - summary.overflowPages();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LeafRef r && r.page == page && r.summary.equals(summary)
                && Arrays.equals(r.encodedMinKey, encodedMinKey) && Arrays.equals(r.encodedMaxKey, encodedMaxKey);
    }

    @Override
    public int hashCode() {
        return page * 31 + summary.hashCode();
    }

    @Override
    public String toString() {
        return "leaf " + page + " [" + InternalKeys.describe(minKey) + "@" + minKeySeqno + ".."
                + InternalKeys.describe(maxKey) + "@" + maxKeySeqno + "] " + summary;
    }
}
