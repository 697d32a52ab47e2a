package dev.strata.lsm.sstable;

/**
 * The fields of one leaf cell, found by {@link LeafDecoder} (layout in docs/format.md): where
 * the user key lies (in the page for a plain leaf, in the decoder's key buffer for a
 * prefix-compressed one, where it is rebuilt from the shared prefix), the trailer, and where an
 * inline value lies in the page or which extent an overflow value is. Parsing copies no value,
 * so a merge that hands a cell's key and value on to a writer reads each value byte once.
 * Mutable, reused from cell to cell; not thread safe.
 */
final class LeafCell {
    /** The array holding the user key (the page, or the decoder's key buffer), its offset there, and its length. */
    byte[] keyArray;
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
