package dev.strata.lsm.merge;

import dev.strata.lsm.sstable.EntryType;

import java.util.Arrays;

/**
 * Decides, entry by entry of a merge's sorted input, which versions the output keeps.
 *
 * <p>Snapshots split the sequence-number line into stripes: a version belongs to the
 * stripe of the oldest snapshot that can see it (or to the "latest" stripe above every
 * snapshot). Within a stripe only the newest version of a key is visible to anyone, so
 * older versions in the same stripe are dropped — unless the newest ones are merge
 * operands, which keep the versions below them down to the first put or tombstone. A tombstone is dropped too when the
 * output is bottommost (no older data for the key can remain below) and it lies in the
 * lowest stripe (no snapshot older than it could still need an older version).
 * Not thread safe; feed entries in internal-key order.
 */
public final class VersionRetention {
    private final long[] snapshots;
    private final boolean bottommost;
    private byte[] lastKey;
    private int lastStripe;
    /** Whether every version of the current key kept in its stripe so far is a merge operand. */
    private boolean underMerge;

    /**
     * @param snapshots sequence numbers of live snapshots, ascending
     * @param bottommost whether nothing older than the output overlaps its key range
     */
    public VersionRetention(long[] snapshots, boolean bottommost) {
        this.snapshots = snapshots.clone();
        Arrays.sort(this.snapshots);
        this.bottommost = bottommost;
    }

    /**
     * Whether nothing older than the output overlaps its key range.
     *
     * @return true when the output is bottommost
     */
    public boolean bottommost() {
        return bottommost;
    }

    /**
     * Whether the output keeps this entry.
     *
     * @param key the entry's user key
     * @param seqno the entry's sequence number
     * @param type the entry's type (put, tombstone, merge operand)
     * @return true when the output keeps the entry
     */
    public boolean keep(byte[] key, long seqno, EntryType type) {
        int stripe = stripe(seqno);
        boolean sameKey = lastKey != null && Arrays.equals(lastKey, key);
        if (sameKey && stripe == lastStripe) {
            if (!underMerge) {
                return false;
            }
            // Merge operands need the versions below them, down to the first put or delete.
            underMerge = type == EntryType.MERGE;
            return !(type == EntryType.DELETE && bottommost && stripe == 0);
        }
        lastKey = key;
        lastStripe = stripe;
        underMerge = type == EntryType.MERGE;
        return !(type == EntryType.DELETE && bottommost && stripe == 0);
    }

    /**
     * The stripe of {@code seqno}: the index of the first snapshot >= seqno (snapshots.length when
     * none).
     *
     * @param seqno a sequence number
     * @return the stripe's index, from 0 to the number of snapshots
     */
    public int stripe(long seqno) {
        int i = Arrays.binarySearch(snapshots, seqno);
        if (i >= 0) {
            // Several snapshots may share a sequence number; the first one defines the stripe.
            while (i > 0 && snapshots[i - 1] == seqno) {
                i--;
            }
            return i;
        }
        return -i - 1;
    }
}
