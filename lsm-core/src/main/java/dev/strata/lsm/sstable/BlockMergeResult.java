package dev.strata.lsm.sstable;

/**
 * What one in-place merge ({@link BlockMergeWriter}) did. Immutable.
 *
 * @param table the new version: its footer and footer offset
 * @param leavesReused clean leaves of the previous version referenced in place (neither read nor written)
 * @param dirtyLeavesMerged leaves of the previous version read and merged with new entries
 * @param leavesWritten leaf pages written (dirty-merged leaves and gap leaves)
 * @param pagesWritten every page written for the new version: leaves, overflow extents,
 *     interior pages, the bloom extent and the footer (logical pages when packed: the footer
 *     is not one)
 * @param bloomRebuilt whether the bloom filter was rebuilt (its reserve was exhausted)
 * @param leavesReadForBloom clean leaves read to rebuild the bloom filter (0 unless rebuilt)
 * @param physicalBytes bytes of the file up to the end of the new footer
 */
public record BlockMergeResult(FinishedTable table, int leavesReused, int dirtyLeavesMerged, int leavesWritten,
                               long pagesWritten, boolean bloomRebuilt, int leavesReadForBloom, long physicalBytes) {

    /** Bytes written for the new version (as stored: packed frames, the page map and the footer, when compressed). */
    public long bytesWritten() {
        Footer f = table.footer();
        return f.packed() ? table.endOffset() - f.firstOffset() : pagesWritten * f.pageSize();
    }

    /** Bytes the new version references (its logical size). */
    public long logicalBytes() {
        return table.footer().liveBytes();
    }
}
