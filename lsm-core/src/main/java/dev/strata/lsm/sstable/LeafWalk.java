package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;

import java.io.IOException;
import java.util.List;

/**
 * The order in which an in-place merge visits a table version's leaves and the new entries,
 * and which leaves it merges: {@link BlockMergePlan} and {@link BlockMergeWriter} both walk
 * through here, so the plan's dirty leaves are exactly the ones the writer reads and rewrites.
 *
 * <p>A leaf is merged when a new user key lies within its [first, last] user keys (it is
 * dirty, FAMILIES.md 2.2 step 2), or when new keys fall in a gap next to it that it has room
 * for. New keys between two leaves that stay in place would otherwise form a leaf of their
 * own: with page-aligned leaves a single key takes a whole page, where BlockDB's unpadded
 * blocks take only its bytes. So the gap's keys go into the leaf on its left when the first
 * of them fits there, else into the leaf on its right when it fits there; the merged leaf is
 * written once, as a gap leaf would have been, and its old page becomes dead (punched when
 * hole punching is on). Gap keys after a merged leaf join that merge's last leaf as before.
 * Leaves with overflow values never take gap keys.
 */
final class LeafWalk {
    /** Most bytes a plain cell adds beyond its key and value: key and value length varints, trailer, value kind, slot. */
    private static final int MAX_CELL_OVERHEAD = 3 + 8 + 1 + 3 + PageFormat.SLOT_SIZE;
    /**
     * Most bytes a prefix-compressed cell adds beyond its key, value and tag: shared and
     * unshared key length varints (keys are below 16 KiB), the value header (inline values are
     * below 32 KiB) and a slot; the tag takes at most the bytes of the largest sequence number.
     */
    private static final int MAX_PREFIX_CELL_OVERHEAD = 2 + 2 + 3 + PageFormat.SLOT_SIZE;

    private LeafWalk() {
    }

    /** What the walk does at each step. */
    interface Steps {
        /** Takes the input's current entry as one outside every old leaf, and advances the input. */
        void gapEntry() throws IOException;

        /**
         * Merges leaf {@code first}, and every following leaf whose first user key equals the
         * previous one's last, with the input up to the last such leaf's last user key
         * (including input before {@code first}'s first key); returns the next leaf's index.
         */
        int merge(int first) throws IOException;

        /** References {@code leaf} in place. */
        void keep(LeafRef leaf) throws IOException;
    }

    /** Walks {@code leaves} (in key order) and {@code input} (positioned; consumed to its end). */
    static void walk(List<LeafRef> leaves, InternalIterator input, int pageSize, LeafEncoding encoding, Steps steps)
            throws IOException {
        int n = leaves.size();
        int i = 0;
        // Whether the last step wrote new entries, so that the writer's open leaf takes the next gap keys.
        boolean open = false;
        while (i < n) {
            LeafRef leaf = leaves.get(i);
            if (!open && before(input, leaf) && hasRoom(leaf, input, pageSize, encoding)) {
                i = steps.merge(i);
                open = true;
                continue;
            }
            while (before(input, leaf)) {
                steps.gapEntry();
                open = true;
            }
            boolean dirty = input.valid() && InternalKeys.compareUserKeys(input.key(), leaf.maxKey()) <= 0;
            boolean gapAfter = input.valid() && (i + 1 == n || before(input, leaves.get(i + 1)));
            if (dirty || (gapAfter && hasRoom(leaf, input, pageSize, encoding))) {
                i = steps.merge(i);
                open = true;
            } else {
                steps.keep(leaf);
                i++;
                open = false;
            }
        }
        while (input.valid()) {
            steps.gapEntry();
        }
    }

    private static boolean before(InternalIterator input, LeafRef leaf) throws IOException {
        return input.valid() && InternalKeys.compareUserKeys(input.key(), leaf.minKey()) < 0;
    }

    /**
     * Whether the input's current entry surely fits in {@code leaf} as an inline cell, judged
     * from the leaf's summary (an upper bound of the bytes its cells take) without reading it.
     */
    private static boolean hasRoom(LeafRef leaf, InternalIterator input, int pageSize, LeafEncoding encoding)
            throws IOException {
        LeafSummary s = leaf.summary();
        if (s.overflowPages() > 0) {
            return false;
        }
        int keyLength = input.key().length;
        int cell = PageFormat.varintSize(keyLength) + keyLength + 8;
        if (input.type() != EntryType.DELETE) {
            int valueLength = input.valueLength();
            cell += 1 + PageFormat.varintSize(valueLength) + valueLength;
        }
        if (cell > SlottedPageBuilder.maxCellSize(pageSize) / 2) {
            return false; // its value would go to an overflow extent
        }
        long used = PageFormat.HEADER_SIZE + s.userBytes() + (long) s.entries() * MAX_CELL_OVERHEAD;
        if (encoding == LeafEncoding.PREFIX) {
            // Keys are counted whole (an upper bound of their suffixes), the tag by the leaf's
            // largest sequence number or the new entry's, whichever is larger.
            long seqno = Math.max(s.maxSeqno(), input.seqno());
            int tag = PageFormat.varlongSize((seqno << PageFormat.TAG_TYPE_BITS) | 3);
            used = PageFormat.HEADER_SIZE + PageFormat.RESTART_TAIL_SIZE + s.userBytes()
                    + (long) s.entries() * (MAX_PREFIX_CELL_OVERHEAD + tag);
            cell += 2 + tag; // the new cell's shared length and tag, beyond the plain cell's key length and kind
        }
        return used + cell + PageFormat.SLOT_SIZE <= pageSize;
    }
}
