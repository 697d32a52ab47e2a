package dev.strata.lsm;

/**
 * What the write-ahead log has done with a write's record by the time the write returns,
 * and so what the record survives.
 */
public enum WalSyncMode {
    /**
     * No durability promise. Records are buffered in memory and handed to the operating
     * system only when the buffer passes a buffer limit (1 MiB), on
     * the log's {@code ()} or on the log's {@code ()}; a process kill loses what
     * is still buffered.
     */
    NONE,
    /**
     * The record has been written to the operating system (one {@code PageFile.append}
     * per group-committed batch) before the append returns: it survives a process kill, not
     * a power loss.
     */
    ASYNC,
    /**
     * The record has been written and covered by a {@code PageFile.force(false)} before
     * append returns: it survives a power loss. Concurrent appenders share one write and
     * one force per batch (group commit).
     */
    SYNC
}
