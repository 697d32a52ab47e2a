package dev.strata.lsm.policy.designspace;

/**
 * Which file a partial compaction moves down (seed 003's data-movement primitive). Ties are
 * broken by smallest key, so decisions are deterministic.
 */
public enum DataMovement {
    /** A per-level cursor: the first file whose smallest key is past the largest key last moved down; wraps. */
    ROUND_ROBIN("round-robin"),
    /** The least overlap with the next level, as RocksDB's kMinOverlappingRatio: overlapping bytes / file bytes. */
    LEAST_OVERLAP_PARENT("least-overlap-parent"),
    /** The least overlap with the level after the next (overlapping bytes / file bytes). */
    LEAST_OVERLAP_GRANDPARENT("least-overlap-grandparent"),
    /** The coldest file: whose newest entry is oldest (smallest largest sequence number; RocksDB kOldestLargestSeqFirst). */
    COLDEST("coldest"),
    /** The oldest file: smallest smallest sequence number (the range not compacted down for longest). */
    OLDEST("oldest"),
    /** The highest tombstone density (tombstones / entries). */
    TOMBSTONE_DENSITY("tombstone-density"),
    /** The oldest tombstone first (smallest oldest-tombstone time). */
    EXPIRED_TOMBSTONE_TTL("expired-tombstone-ttl");

    private final String xmlName;

    DataMovement(String xmlName) {
        this.xmlName = xmlName;
    }

    /**
     * The name used in XML.
     *
     * @return the value configurations write for this constant
     */
    public String xmlName() {

        return xmlName;
    }
}
