package dev.strata.lsm.sstable;

import java.io.IOException;

/**
 * A forward cursor over internal entries in internal-key order (user key ascending, then
 * sequence number descending): tables, memtables, runs and merges of them all look alike
 * through it. Not thread safe.
 */
public interface InternalIterator extends AutoCloseable {
    /** Positions at the first entry. */
    void seekToFirst() throws IOException;

    /** Positions at the first entry whose user key is >= {@code userKey}. */
    void seek(byte[] userKey) throws IOException;

    /** Whether the iterator is positioned at an entry. */
    boolean valid();

    /** Advances; {@link #valid()} turns false past the last entry. */
    void next() throws IOException;

    /** User key at the current position. */
    byte[] key();

    /** Sequence number at the current position. */
    long seqno();

    /** Entry type at the current position. */
    EntryType type();

    /** Value at the current position, null for a tombstone. */
    byte[] value() throws IOException;

    /** Releases what the iterator holds; the default holds nothing. */
    @Override
    default void close() throws IOException {
    }
}
