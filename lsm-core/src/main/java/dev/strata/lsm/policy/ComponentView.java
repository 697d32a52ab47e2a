package dev.strata.lsm.policy;

import java.util.Arrays;

/**
 * What a policy may know about one component. Immutable.
 *
 * @param id the component's identity
 * @param sizeBytes bytes the component occupies on disk
 * @param entryCount internal entries, tombstones included
 * @param tombstoneCount DELETE entries
 * @param userBytes sum of user key and value lengths
 * @param minKey smallest user key
 * @param maxKey largest user key
 * @param minSeqno smallest sequence number
 * @param maxSeqno largest sequence number
 * @param creationOrder increases with every component the store creates (flush or merge output)
 * @param busy whether a merge is currently using the component
 */
public record ComponentView(ComponentId id, long sizeBytes, long entryCount, long tombstoneCount, long userBytes,
                            byte[] minKey, byte[] maxKey, long minSeqno, long maxSeqno, long creationOrder,
                            boolean busy) {

    /** Whether this component's key range intersects [from, to] (both inclusive). */
    public boolean overlaps(byte[] from, byte[] to) {
        return Arrays.compareUnsigned(minKey, to) <= 0 && Arrays.compareUnsigned(from, maxKey) <= 0;
    }

    /** Whether the key ranges of the two components intersect. */
    public boolean overlaps(ComponentView other) {
        return overlaps(other.minKey, other.maxKey);
    }

    /** A copy with the busy flag set as given. */
    public ComponentView withBusy(boolean nowBusy) {
        return nowBusy == busy ? this : new ComponentView(id, sizeBytes, entryCount, tombstoneCount, userBytes,
                minKey, maxKey, minSeqno, maxSeqno, creationOrder, nowBusy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ComponentView c && c.id.equals(id) && c.busy == busy && c.sizeBytes == sizeBytes;
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id + "(" + sizeBytes + "B" + (busy ? ", busy" : "") + ")";
    }
}
