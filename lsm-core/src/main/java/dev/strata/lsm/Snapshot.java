package dev.strata.lsm;

/**
 * A consistent, read-only view of the store as of the moment it was taken. Merges keep
 * every version of a key that an open snapshot can see; close snapshots promptly.
 */
public interface Snapshot extends AutoCloseable {
    /**
     * The value of {@code key} at the snapshot, or null.
     *
     * @param key the key (not null)
     * @return the value, or null when the key was absent or deleted at the snapshot
     */
    byte[] get(byte[] key);

    /**
     * A cursor over the live keys in [fromInclusive, toExclusive) at the snapshot; null bounds
     * are open. It moves both ways (see {@link Cursor}) and stays usable after the snapshot
     * closes. Close the cursor.
     *
     * @param fromInclusive the first key, or null for no lower bound
     * @param toExclusive the key the scan stops before, or null for no upper bound
     * @return a new cursor, which the caller closes
     */
    Cursor scan(byte[] fromInclusive, byte[] toExclusive);

    /**
     * The value of {@code key} in column family {@code family} at the snapshot, or null. A
     * snapshot reads every family at the same point: a {@link WriteBatch} across families is
     * seen whole or not at all.
     *
     * @param family the family read (a live handle of the snapshot's store)
     * @param key the key (not null)
     * @return the value, or null when the key was absent or deleted at the snapshot
     * @throws IllegalArgumentException if {@code family} is null, another store's, or dropped
     */
    byte[] get(ColumnFamily family, byte[] key);

    /**
     * {@link #scan(byte[], byte[])} over column family {@code family}.
     *
     * @param family the family read (a live handle of the snapshot's store)
     * @param fromInclusive the first key, or null for no lower bound
     * @param toExclusive the key the scan stops before, or null for no upper bound
     * @return a new cursor, which the caller closes
     */
    Cursor scan(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive);

    /**
     * A cursor over the live keys starting with {@code prefix} at the snapshot (see
     * {@link LsmStore#scanPrefix(byte[])}). It moves both ways within the prefix and stays
     * usable after the snapshot closes. Close the cursor.
     *
     * @param prefix the prefix every returned key starts with (empty for all keys)
     * @return a new cursor, which the caller closes
     * @throws IllegalArgumentException if {@code prefix} is null
     */
    Cursor scanPrefix(byte[] prefix);

    /**
     * {@link #scanPrefix(byte[])} over column family {@code family}.
     *
     * @param family the family read (a live handle of the snapshot's store)
     * @param prefix the prefix every returned key starts with (not null; empty for all keys)
     * @return a new cursor, which the caller closes
     */
    Cursor scanPrefix(ColumnFamily family, byte[] prefix);

    /**
     * The sequence number this snapshot reads at.
     *
     * @return the snapshot's sequence number
     */
    long sequenceNumber();

    @Override
    void close();
}
