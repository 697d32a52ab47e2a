package dev.strata.lsm.sstable;

/**
 * What {@link SSTableWriter#finish()} produced: the footer and where it is. Open the table
 * with {@link SSTableReader#open} at {@link #footerOffset()}.
 *
 * @param footerOffset byte offset of the footer page in the file
 * @param footer the footer written there
 */
public record FinishedTable(long footerOffset, Footer footer) {
    /** Bytes from the start of the file to the end of the footer. */
    public long endOffset() {
        return footerOffset + footer.pageSize();
    }
}
