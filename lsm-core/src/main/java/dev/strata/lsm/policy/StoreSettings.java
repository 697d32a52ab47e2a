package dev.strata.lsm.policy;

/**
 * The settings of the store (or column family) a policy decides for, as every {@link TreeView}
 * carries them, so a policy reads a setting instead of guessing it from what it sees (Pebble's
 * picker reads {@code opts.TargetFileSize}). Immutable.
 *
 * @param memtableBytes the size at which a memtable is switched out and flushed: the store's
 *     {@code StoreConfig.memtableBytes()}, a column family's own when it sets one, a simulator's
 *     flush size; 0 when whoever built the view does not know it (a view made by hand)
 */
public record StoreSettings(long memtableBytes) {
    /** Settings of a view whose maker knows none. */
    public static final StoreSettings UNKNOWN = new StoreSettings(0);

    /**
     * Creates a {@code StoreSettings} from its components.
     *
     * @param memtableBytes the size at which a memtable is switched out and flushed: the store's
     *     {@code StoreConfig.memtableBytes()}, a column family's own when it sets one, a simulator's
     *     flush size; 0 when whoever built the view does not know it (a view made by hand)
     */
    public StoreSettings {
        if (memtableBytes < 0) {
            throw new IllegalArgumentException("memtableBytes must be >= 0 (0: unknown), got " + memtableBytes);
        }
    }

    /**
     * Whether the memtable size is known.
     *
     * @return true when the memtable size was given (not {@link #UNKNOWN})
     */
    public boolean knowsMemtableBytes() {
        return memtableBytes > 0;
    }
}
