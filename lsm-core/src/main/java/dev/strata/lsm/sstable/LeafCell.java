package dev.strata.lsm.sstable;

/**
 * The fields of one leaf cell, found in place in its page (layout in docs/format.md) by
 * {@link SSTableReader#parseCell}: where the user key lies, the trailer, and where an inline
 * value lies or which extent an overflow value is. Parsing copies nothing, so a merge that
 * hands a cell's key and value on to a writer reads each byte of the page once. Mutable,
 * reused from cell to cell; not thread safe.
 */
final class LeafCell {
    /** Offset of the user key in the page, and its length. */
    int keyStart;
    int keyLength;
    /** Sequence number (high 56 bits) and entry type code (low 8). */
    long trailer;
    EntryType type;
    /** {@link PageFormat#VALUE_INLINE}, {@link PageFormat#VALUE_OVERFLOW}, or -1 for a tombstone. */
    int valueKind;
    /** Inline value: its offset in the page. */
    int valueStart;
    /** Value length in bytes (inline or overflow); -1 for a tombstone. */
    int valueLength;
    /** Overflow value: first page of its extent and the extent's CRC32C. */
    int overflowPage;
    int overflowCrc;

    long seqno() {
        return trailer >>> 8;
    }

    boolean inline() {
        return valueKind == PageFormat.VALUE_INLINE;
    }
}
