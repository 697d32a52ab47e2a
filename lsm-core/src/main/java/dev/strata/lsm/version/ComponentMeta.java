package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.Footer;

/**
 * The durable description of one component, as recorded in the manifest: enough for a
 * policy to decide without opening the table. Immutable.
 *
 * @param id file number and footer offset
 * @param sizeBytes logical bytes of this version: the pages it references (for a table written whole,
 *     from its first page to the end of its footer; for a version merged in place, its clean
 *     leaves of earlier versions too). The file may hold more ({@link Component#physicalBytes()}).
 * @param entryCount internal entries
 * @param tombstoneCount DELETE entries
 * @param userBytes sum of key and value lengths
 * @param minKey smallest user key
 * @param maxKey largest user key
 * @param minSeqno smallest sequence number
 * @param maxSeqno largest sequence number
 * @param creationOrder position in the order the store created components
 * @param creationTimeMillis wall-clock time the table was written, milliseconds since the
 *     epoch; 0 when unknown (a component recorded by a format-1 manifest)
 * @param oldestTombstoneMillis wall-clock time the oldest tombstone it holds first reached a
 *     table ({@link ComponentView#NO_TOMBSTONE} when it holds none; 0 when unknown)
 */
public record ComponentMeta(ComponentId id, long sizeBytes, long entryCount, long tombstoneCount, long userBytes,
                            byte[] minKey, byte[] maxKey, long minSeqno, long maxSeqno, long creationOrder,
                            long creationTimeMillis, long oldestTombstoneMillis) {

    /** Metadata without wall-clock times (unknown: 0), as a format-1 manifest records it. */
    public ComponentMeta(ComponentId id, long sizeBytes, long entryCount, long tombstoneCount, long userBytes,
                         byte[] minKey, byte[] maxKey, long minSeqno, long maxSeqno, long creationOrder) {
        this(id, sizeBytes, entryCount, tombstoneCount, userBytes, minKey, maxKey, minSeqno, maxSeqno, creationOrder,
                0, tombstoneCount == 0 ? ComponentView.NO_TOMBSTONE : 0);
    }

    /**
     * Metadata of a freshly written table, created at {@code nowMillis} (the store's clock,
     * {@code StoreConfig.clock()}). Its tombstones, if any, count as written then too; a merge
     * output inherits the older time of its inputs' tombstones through
     * {@link ComponentTimes#inherit}.
     */
    public static ComponentMeta of(long fileNumber, FinishedTable table, long creationOrder, long nowMillis) {
        Footer f = table.footer();
        // A version merged in place references pages of earlier versions: its size is the pages
        // it references (logical), not the pages written for it; the file may be larger (physical).
        // A packed version's size is the bytes it references as stored (compressed).
        long size = f.packed() ? f.storedBytes()
                : f.previousFooterOffset() >= 0 ? f.liveBytes() : table.endOffset() - (long) f.firstPage() * f.pageSize();
        return new ComponentMeta(new ComponentId(fileNumber, table.footerOffset()), size, f.entryCount(),
                f.tombstoneCount(), f.userBytes(), f.minKey(), f.maxKey(), f.minSeqno(), f.maxSeqno(), creationOrder,
                nowMillis, f.tombstoneCount() == 0 ? ComponentView.NO_TOMBSTONE : nowMillis);
    }

    public long fileNumber() {
        return id.fileNumber();
    }

    /** A copy with another creation order (repair renumbers the tables it keeps). */
    public ComponentMeta withCreationOrder(long order) {
        return new ComponentMeta(id, sizeBytes, entryCount, tombstoneCount, userBytes, minKey, maxKey, minSeqno,
                maxSeqno, order, creationTimeMillis, oldestTombstoneMillis);
    }

    /** A copy with another oldest-tombstone time. */
    public ComponentMeta withOldestTombstoneMillis(long millis) {
        return new ComponentMeta(id, sizeBytes, entryCount, tombstoneCount, userBytes, minKey, maxKey, minSeqno,
                maxSeqno, creationOrder, creationTimeMillis, millis);
    }

    /** Estimated logical live bytes: user bytes scaled by the fraction of entries that are not tombstones. */
    public double liveUserBytes() {
        return entryCount == 0 ? 0 : (double) userBytes * (entryCount - tombstoneCount) / entryCount;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ComponentMeta m && m.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }
}
