package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.Footer;

/**
 * The durable description of one component, as recorded in the manifest: enough for a
 * policy to decide without opening the table. Immutable.
 *
 * @param id file number and footer offset
 * @param sizeBytes bytes of the file this version occupies (from its first page to the end of its footer)
 * @param entryCount internal entries
 * @param tombstoneCount DELETE entries
 * @param userBytes sum of key and value lengths
 * @param minKey smallest user key
 * @param maxKey largest user key
 * @param minSeqno smallest sequence number
 * @param maxSeqno largest sequence number
 * @param creationOrder position in the order the store created components
 */
public record ComponentMeta(ComponentId id, long sizeBytes, long entryCount, long tombstoneCount, long userBytes,
                            byte[] minKey, byte[] maxKey, long minSeqno, long maxSeqno, long creationOrder) {

    /** Metadata of a freshly written table. */
    public static ComponentMeta of(long fileNumber, FinishedTable table, long creationOrder) {
        Footer f = table.footer();
        long size = table.endOffset() - (long) f.firstPage() * f.pageSize();
        return new ComponentMeta(new ComponentId(fileNumber, table.footerOffset()), size, f.entryCount(),
                f.tombstoneCount(), f.userBytes(), f.minKey(), f.maxKey(), f.minSeqno(), f.maxSeqno(), creationOrder);
    }

    public long fileNumber() {
        return id.fileNumber();
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
