package dev.strata.lsm.sstable;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * What an in-place merge of some input into a table version would touch, computed from the
 * version's interior pages and the input's keys alone (no leaf is read): the figures BlockDB's
 * selective compaction decides on (FAMILIES.md 2.3: valid size, valid ratio, dirty ratio).
 * The dirty leaves are exactly those {@link BlockMergeWriter} would merge. Immutable.
 *
 * @param leaves leaves of the version
 * @param dirtyLeaves leaves the merge would read and rewrite (dirty ones, and those taking in a
 *     neighbouring gap's keys: {@link LeafWalk})
 * @param dirtyBytes bytes of the dirty leaves and their overflow extents (as stored, compressed, in a
 *     packed version)
 * @param inputEntries entries in the input
 * @param liveBytes bytes the version references (its valid size: {@link Footer#liveBytes()}, or
 *     {@link Footer#storedBytes()} for a packed version)
 * @param fileBytes bytes of the file up to the end of the version's footer (BlockDB's
 *     {@code size}; pages released by hole punching still count)
 */
public record BlockMergePlan(int leaves, int dirtyLeaves, long dirtyBytes, long inputEntries, long liveBytes,
                             long fileBytes) {

    /** {@code liveBytes / fileBytes}: below a level's minimum, BlockDB rewrites the table ("mostly dead"). */
    public double validRatio() {
        return (double) liveBytes / fileBytes;
    }

    /** {@code dirtyBytes / fileBytes}: above a level's maximum, BlockDB rewrites the table ("mostly dirty"). */
    public double dirtyRatio() {
        return (double) dirtyBytes / fileBytes;
    }

    /**
     * Classifies the leaves of {@code base} against {@code input} (consumed from its current
     * position to its end; seek it again before merging).
     *
     * @throws IllegalArgumentException if {@code base} is of format version 1
     */
    public static BlockMergePlan of(SSTableReader base, InternalIterator input) throws IOException {
        List<LeafRef> leaves = LeafIndex.leaves(base);
        int pageSize = base.footer().pageSize();
        int[] dirty = {0};
        long[] dirtyBytes = {0};
        long[] entries = {0};
        LeafWalk.walk(leaves, input, pageSize, base.footer().leafEncoding(), new LeafWalk.Steps() {
            @Override
            public void gapEntry() throws IOException {
                entries[0]++;
                input.next();
            }

            @Override
            public int merge(int first) throws IOException {
                // As the writer merges: the leaf with every following one that continues its last user key.
                int last = first;
                while (last + 1 < leaves.size()
                        && Arrays.equals(leaves.get(last).maxKey(), leaves.get(last + 1).minKey())) {
                    last++;
                }
                for (int j = first; j <= last; j++) {
                    dirty[0]++;
                    dirtyBytes[0] += storedBytes(base, leaves.get(j));
                }
                while (input.valid() && InternalKeys.compareUserKeys(input.key(), leaves.get(last).maxKey()) <= 0) {
                    entries[0]++;
                    input.next();
                }
                return last + 1;
            }

            @Override
            public void keep(LeafRef leaf) {
            }
        });
        return new BlockMergePlan(leaves.size(), dirty[0], dirtyBytes[0], entries[0], liveBytes(base), fileBytes(base));
    }

    /**
     * The bytes {@code base} references, its valid size ({@link #liveBytes()} of its plans):
     * as stored (compressed) for a packed version.
     */
    public static long liveBytes(SSTableReader base) {
        return base.footer().packed() ? base.footer().storedBytes() : base.footer().liveBytes();
    }

    /** The bytes of {@code base}'s file up to the end of its footer ({@link #fileBytes()} of its plans). */
    public static long fileBytes(SSTableReader base) {
        return base.footerOffset() + base.footer().pageSize();
    }

    /** The bytes a leaf and its overflow extents take in the file: whole pages, or as stored when packed. */
    private static long storedBytes(SSTableReader base, LeafRef leaf) {
        if (!base.footer().packed()) {
            return (1L + leaf.summary().overflowPages()) * base.footer().pageSize();
        }
        long bytes = 0;
        for (int p = leaf.firstReferencedPage(); p <= leaf.page(); p++) {
            bytes += base.mappedLength(p);
        }
        return bytes;
    }
}
