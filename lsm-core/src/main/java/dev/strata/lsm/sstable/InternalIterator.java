package dev.strata.lsm.sstable;

import java.io.IOException;

/**
 * A bidirectional cursor over internal entries in internal-key order (user key ascending,
 * then sequence number descending): tables, memtables, runs and merges of them all look
 * alike through it. Not thread safe.
 *
 * <p>As LevelDB's internal iterators: a seek positions it (or leaves it not {@link #valid()}
 * when no entry qualifies); {@link #next()} and {@link #prev()} need a valid position and step
 * to the neighbouring entry, turning invalid past either end. Once invalid, only a seek
 * positions it again.
 */
public interface InternalIterator extends AutoCloseable {
    /**
     * Positions at the first entry.
     *
     * @throws java.io.IOException if a page cannot be read
     */
    void seekToFirst() throws IOException;

    /**
     * Positions at the last entry.
     *
     * @throws java.io.IOException if a page cannot be read
     */
    void seekToLast() throws IOException;

    /** Positions at the first entry whose user key is >= {@code userKey}. */
    default void seek(byte[] userKey) throws IOException {
        seek(userKey, InternalKeys.MAX_SEQNO);
    }

    /**
     * Positions at the first entry whose internal key is >= {@code (userKey, seqno)}.
     *
     * @param userKey the user key to seek
     * @param seqno the sequence number: among versions of {@code userKey}, newer ones sort first
     * @throws java.io.IOException if a page cannot be read
     */
    void seek(byte[] userKey, long seqno) throws IOException;

    /** Positions at the last entry whose user key is <= {@code userKey}. */
    default void seekForPrev(byte[] userKey) throws IOException {
        // (userKey, 0) is the largest internal key of userKey.
        seekForPrev(userKey, 0);
    }

    /**
     * Positions at the last entry whose internal key is &lt;= {@code (userKey, seqno)}. The
     * default seeks forward to the first entry >= it and steps back once if that is greater.
     *
     * @param userKey the user key to seek
     * @param seqno the sequence number: among versions of {@code userKey}, newer ones sort first
     * @throws java.io.IOException if a page cannot be read
     */
    default void seekForPrev(byte[] userKey, long seqno) throws IOException {
        seek(userKey, seqno);
        if (!valid()) {
            seekToLast();
        } else if (InternalKeys.compare(key(), seqno(), userKey, seqno) > 0) {
            prev();
        }
    }

    /**
     * Whether the iterator is positioned at an entry.
     *
     * @return true when positioned at an entry
     */
    boolean valid();

    /**
     * Advances; {@link #valid()} turns false past the last entry. Needs a valid position.
     *
     * @throws java.io.IOException if a page cannot be read
     */
    void next() throws IOException;

    /**
     * Steps back; {@link #valid()} turns false before the first entry. Needs a valid position.
     *
     * @throws java.io.IOException if a page cannot be read
     */
    void prev() throws IOException;

    /**
     * User key at the current position.
     *
     * @return the current user key
     */
    byte[] key();

    /**
     * Sequence number at the current position.
     *
     * @return the current sequence number
     */
    long seqno();

    /**
     * Entry type at the current position.
     *
     * @return the current entry type
     */
    EntryType type();

    /**
     * Value at the current position, null for a tombstone.
     *
     * @return the current value, or null for a tombstone
     * @throws java.io.IOException if a page cannot be read
     */
    byte[] value() throws IOException;

    /**
     * The array holding the value at the current position, from {@link #valueOffset()} for
     * {@link #valueLength()} bytes; null for a tombstone. A merge hands values on to a table
     * writer through it without copying them: the array may be the iterator's own page, valid
     * only until the iterator moves, and must not be modified. The default is {@link #value()}.
     *
     * @return the array holding the value, or null for a tombstone
     * @throws java.io.IOException if a page cannot be read
     */
    default byte[] valueArray() throws IOException {
        return value();
    }

    /**
     * Where the value starts in {@link #valueArray()} (call that first).
     *
     * @return the value's offset in the array
     */
    default int valueOffset() {
        return 0;
    }

    /**
     * Length of the value at the current position, -1 for a tombstone.
     *
     * @return the value's length in bytes, or -1 for a tombstone
     * @throws java.io.IOException if a page cannot be read
     */
    default int valueLength() throws IOException {
        byte[] v = value();
        return v == null ? -1 : v.length;
    }

    /** Releases what the iterator holds; the default holds nothing. */
    @Override
    default void close() throws IOException {
    }
}
