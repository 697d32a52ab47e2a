package dev.strata.lsm;

/**
 * What block compactions ({@code REUSE_BLOCKS} merges, seed 001) did to their child tables
 * since the store opened: how many were merged in place, and how many selective compaction
 * rewrote and why (FAMILIES.md 2.3, in the order the rules are tried). Immutable.
 *
 * @param mergedInPlace children merged in place (clean leaves kept, dirty leaves appended)
 * @param rewrittenTooLarge children rewritten because their valid size exceeded the level's maximum file size
 * @param rewrittenMostlyDead children rewritten because too little of their file was live
 * @param rewrittenMostlyDirty children rewritten because too much of their file was dirty
 * @param inPlaceBytesWritten bytes the in-place merges appended (leaves, interior pages, blooms, footers)
 * @param bytesPunched bytes of pages no live version references that were released with
 *     {@code fallocate(PUNCH_HOLE)} (0 unless the storage supports it and it is on)
 */
public record BlockCompactionStats(long mergedInPlace, long rewrittenTooLarge, long rewrittenMostlyDead,
                                   long rewrittenMostlyDirty, long inPlaceBytesWritten, long bytesPunched) {
    /** No block compaction yet. */
    public static final BlockCompactionStats NONE = new BlockCompactionStats(0, 0, 0, 0, 0, 0);

    /**
     * Children rewritten by selective compaction, for any reason.
     *
     * @return the number of children rewritten
     */
    public long rewritten() {
        return rewrittenTooLarge + rewrittenMostlyDead + rewrittenMostlyDirty;
    }
}
