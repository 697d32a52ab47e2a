package dev.strata.lsm.policy.vlsm;

/**
 * What a {@link VlsmPolicy} instance has counted of its own tree since it was created: every
 * level-1 vSST the first time a decision saw it (right after the level-0 → level-1 merge that
 * wrote it), judged good or poor in both readings of overlap (FAMILIES.md §3.1 step 2: the
 * number of level-2 SSTs its key range intersects, good when ≤ f; and level-2 bytes per vSST
 * byte, good when ≤ f), and every level-1 → level-2 merge once its level-1 inputs have left
 * level 1 (a merge the engine refused is not counted). These are FAMILIES.md §3.6 VL3's
 * figures measured on the engine: the good-vSST share (paper §6.3: 90% good at Φ = 32) and
 * the L1→L2 merge amplification, level-2 bytes merged per level-1 byte moved (floor about
 * (Φ+1)/2 on uniform keys; the paper's ≤ f).
 *
 * <p>An immutable value; {@link VlsmPolicy#census()} returns a consistent snapshot.
 *
 * @param vssts level-1 vSSTs seen
 * @param vsstBytes their bytes
 * @param goodByCount of them, with O = level-2 SSTs intersected ≤ f
 * @param goodBytesByCount their bytes
 * @param goodByBytes of them, with level-2 bytes intersected ≤ f × their own bytes
 * @param goodBytesByBytes their bytes
 * @param level2FilesIntersected the sum over the vSSTs seen of the level-2 SSTs each intersects
 * @param level1Merges level-1 → level-2 merges completed
 * @param level1BytesMoved the level-1 bytes those merges took
 * @param level2BytesMerged the level-2 bytes they took with them
 * @param poorWindows of those merges, the ones that took poor vSSTs (no idle good one in level 1)
 */
public record VlsmCensus(long vssts, long vsstBytes, long goodByCount, long goodBytesByCount, long goodByBytes,
                         long goodBytesByBytes, long level2FilesIntersected, long level1Merges,
                         long level1BytesMoved, long level2BytesMerged, long poorWindows) {

    /** Nothing seen. */
    public static final VlsmCensus EMPTY = new VlsmCensus(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** Good vSSTs by count over vSSTs seen (NaN before any). */
    public double goodShareByCount() {
        return (double) goodByCount / vssts;
    }

    /** Good vSSTs by bytes over vSSTs seen (NaN before any). */
    public double goodShareByBytes() {
        return (double) goodByBytes / vssts;
    }

    /** Level-2 bytes merged per level-1 byte moved (NaN before any level-1 merge). */
    public double level1ToLevel2Amplification() {
        return (double) level2BytesMerged / level1BytesMoved;
    }
}
