package dev.strata.lsm.policy;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a policy may know about one component. Immutable.
 *
 * @param id the component's identity
 * @param sizeBytes logical bytes: what the component's own pages occupy (for a component
 *     that reuses pages of an earlier version of its file, those pages count here)
 * @param physicalBytes bytes its file occupies on disk (all versions of the file, less the
 *     dead pages punched out of it; equal to {@code sizeBytes} for a table written in one piece)
 * @param entryCount internal entries, tombstones included
 * @param tombstoneCount DELETE entries
 * @param userBytes sum of user key and value lengths
 * @param minKey smallest user key
 * @param maxKey largest user key
 * @param minSeqno smallest sequence number
 * @param maxSeqno largest sequence number
 * @param creationOrder increases with every component the store creates (flush or merge output)
 * @param creationTimeMillis wall-clock time the component was written (milliseconds since the epoch)
 * @param oldestTombstoneMillis wall-clock time the oldest tombstone it holds was flushed
 *     ({@link #NO_TOMBSTONE} when it holds none); carried through merges, so it is when
 *     the delete first reached disk, at memtable granularity
 * @param reads point lookups that searched this component since the store opened (approximate)
 * @param lastAccessMillis wall-clock time of the last such lookup, or 0 if none since open
 * @param busy whether a merge is currently using the component
 */
public record ComponentView(ComponentId id, long sizeBytes, long physicalBytes, long entryCount, long tombstoneCount,
                            long userBytes, byte[] minKey, byte[] maxKey, long minSeqno, long maxSeqno,
                            long creationOrder, long creationTimeMillis, long oldestTombstoneMillis, long reads,
                            long lastAccessMillis, boolean busy) {

    /** {@link #oldestTombstoneMillis} of a component without tombstones. */
    public static final long NO_TOMBSTONE = Long.MAX_VALUE;

    /**
     * Creates a {@code ComponentView} from its components.
     *
     * @param id the component's identity
     * @param sizeBytes logical bytes: what the component's own pages occupy (for a component
     *     that reuses pages of an earlier version of its file, those pages count here)
     * @param physicalBytes bytes its file occupies on disk (all versions of the file, less the
     *     dead pages punched out of it; equal to {@code sizeBytes} for a table written in one piece)
     * @param entryCount internal entries, tombstones included
     * @param tombstoneCount DELETE entries
     * @param userBytes sum of user key and value lengths
     * @param minKey smallest user key
     * @param maxKey largest user key
     * @param minSeqno smallest sequence number
     * @param maxSeqno largest sequence number
     * @param creationOrder increases with every component the store creates (flush or merge output)
     * @param creationTimeMillis wall-clock time the component was written (milliseconds since the epoch)
     * @param oldestTombstoneMillis wall-clock time the oldest tombstone it holds was flushed
     *     ({@link #NO_TOMBSTONE} when it holds none); carried through merges, so it is when
     *     the delete first reached disk, at memtable granularity
     * @param reads point lookups that searched this component since the store opened (approximate)
     * @param lastAccessMillis wall-clock time of the last such lookup, or 0 if none since open
     * @param busy whether a merge is currently using the component
     */
    public ComponentView {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(minKey, "minKey");
        Objects.requireNonNull(maxKey, "maxKey");
    }

    /**
     * A builder for a component with the given identity (for the simulator and tests).
     *
     * @param id the component's identity (not null)
     * @return a new builder for that component
     */
    public static Builder builder(ComponentId id) {
        return new Builder(id);
    }

    /**
     * Whether this component's key range intersects [from, to] (both inclusive).
     *
     * @param from the smallest key of the range, inclusive
     * @param to the largest key of the range, inclusive
     * @return true when some key of [{@code minKey}, {@code maxKey}] lies in [from, to]
     */
    public boolean overlaps(byte[] from, byte[] to) {
        return Arrays.compareUnsigned(minKey, to) <= 0 && Arrays.compareUnsigned(from, maxKey) <= 0;
    }

    /**
     * Whether the key ranges of the two components intersect.
     *
     * @param other the component to compare with
     * @return true when the two key ranges share at least one key
     */
    public boolean overlaps(ComponentView other) {
        return overlaps(other.minKey, other.maxKey);
    }

    /**
     * Tombstones per entry, 0 for an empty component.
     *
     * @return tombstones divided by entries, from 0 to 1
     */
    public double tombstoneDensity() {
        return entryCount == 0 ? 0 : (double) tombstoneCount / entryCount;
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

    /** Builds a {@link ComponentView}; unset counters are 0, keys empty, no tombstones, not busy. */
    public static final class Builder {
        private final ComponentId id;
        private long sizeBytes;
        private long physicalBytes = -1;
        private long entryCount;
        private long tombstoneCount;
        private long userBytes;
        private byte[] minKey = new byte[0];
        private byte[] maxKey = new byte[0];
        private long minSeqno;
        private long maxSeqno;
        private long creationOrder;
        private long creationTimeMillis;
        private long oldestTombstoneMillis = NO_TOMBSTONE;
        private long reads;
        private long lastAccessMillis;
        private boolean busy;

        private Builder(ComponentId id) {
            this.id = Objects.requireNonNull(id, "id");
        }

        /**
         * Logical size; also the physical size unless {@link #physicalBytes} is set.
         *
         * @param v the logical size in bytes
         * @return this builder
         */
        public Builder sizeBytes(long v) {
            sizeBytes = v;
            return this;
        }

        /**
         * The bytes its file occupies on disk, less dead pages punched out of it.
         *
         * @param v the bytes on disk
         * @return this builder
         */
        public Builder physicalBytes(long v) {
            physicalBytes = v;
            return this;
        }

        /**
         * The entries the component holds, and how many of them are tombstones.
         *
         * @param entries the number of entries, tombstones included
         * @param tombstones how many of the entries are tombstones
         * @return this builder
         */
        public Builder entries(long entries, long tombstones) {
            entryCount = entries;
            tombstoneCount = tombstones;
            return this;
        }

        /**
         * The key and value bytes the component holds.
         *
         * @param v the key and value bytes, without format overhead
         * @return this builder
         */
        public Builder userBytes(long v) {
            userBytes = v;
            return this;
        }

        /**
         * The smallest and largest user key the component holds.
         *
         * @param min the smallest user key (not null)
         * @param max the largest user key (not null)
         * @return this builder
         */
        public Builder keyRange(byte[] min, byte[] max) {
            minKey = min;
            maxKey = max;
            return this;
        }

        /**
         * The smallest and largest sequence number the component holds.
         *
         * @param min the smallest sequence number
         * @param max the largest sequence number
         * @return this builder
         */
        public Builder seqnos(long min, long max) {
            minSeqno = min;
            maxSeqno = max;
            return this;
        }

        /**
         * The component's creation order and time.
         *
         * @param order the creation order: larger is newer
         * @param timeMillis the creation time, milliseconds since the epoch
         * @return this builder
         */
        public Builder creation(long order, long timeMillis) {
            creationOrder = order;
            creationTimeMillis = timeMillis;
            return this;
        }

        /**
         * When the component's oldest tombstone was flushed, or {@link #NO_TOMBSTONE}.
         *
         * @param v the flush time of the oldest tombstone, milliseconds since the epoch, or {@link
         *     #NO_TOMBSTONE}
         *
         * @return this builder
         */
        public Builder oldestTombstoneMillis(long v) {
            oldestTombstoneMillis = v;
            return this;
        }

        /**
         * How many point lookups searched the component, and when the last did.
         *
         * @param readCount the point lookups that searched the component
         * @param lastMillis the time of the last of them, milliseconds since the epoch
         * @return this builder
         */
        public Builder access(long readCount, long lastMillis) {
            reads = readCount;
            lastAccessMillis = lastMillis;
            return this;
        }

        /**
         * Whether a running merge uses the component.
         *
         * @param v true when a running merge has the component among its inputs
         * @return this builder
         */
        public Builder busy(boolean v) {
            busy = v;
            return this;
        }

        /**
         * The view, with the values given so far.
         *
         * @return a new immutable view; the builder may go on being used
         */
        public ComponentView build() {
            return new ComponentView(id, sizeBytes, physicalBytes < 0 ? sizeBytes : physicalBytes, entryCount,
                    tombstoneCount, userBytes, minKey, maxKey, minSeqno, maxSeqno, creationOrder, creationTimeMillis,
                    oldestTombstoneMillis, reads, lastAccessMillis, busy);
        }
    }
}
