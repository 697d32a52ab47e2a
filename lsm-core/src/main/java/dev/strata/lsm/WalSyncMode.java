package dev.strata.lsm;

/**
 * What {@link WalWriter#append} has done with a record by the time it returns, and so
 * what the record survives.
 */
public enum WalSyncMode {
    /**
     * No durability promise. Records are buffered in memory and handed to the operating
     * system only when the buffer passes {@link WalWriter#NONE_BUFFER_LIMIT} bytes, on
     * {@link WalWriter#sync()} or on {@link WalWriter#close()}; a process kill loses what
     * is still buffered.
     */
    NONE,
    /**
     * The record has been written to the operating system (one {@code PageFile.append}
     * per group-committed batch) before append returns: it survives a process kill, not
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
