package dev.strata.lsm;

/**
 * A cursor over the live keys of a range, in unsigned-lexicographic key order, as of the
 * moment it was opened; it moves both ways, with the semantics of RocksDB's iterator.
 *
 * <p><b>Range.</b> {@link LsmStore#scan} and {@link Snapshot#scan} take the range's lower
 * bound (inclusive) and upper bound (exclusive); null is open. No call ever positions the
 * cursor on a key outside the bounds.
 *
 * <p><b>Positions.</b> A cursor is on an entry, or off the entries: before the first, or
 * after the last. Every moving call returns whether it left the cursor on an entry, whose
 * {@link #key()} and {@link #value()} it then gives; {@code key()} and {@code value()} throw
 * {@link IllegalStateException} off the entries.
 * <ul>
 *   <li>A new cursor is before its first entry: {@link #next()} moves to the first entry (so
 *       the loop below reads the range), and {@link #prev()} returns false.</li>
 *   <li>{@code next()} past the last entry leaves the cursor after the last entry, where
 *       {@code next()} keeps returning false and {@code prev()} moves to the last entry;
 *       symmetrically {@code prev()} past the first entry leaves it before the first, where
 *       {@code prev()} keeps returning false and {@code next()} moves to the first entry.</li>
 *   <li>{@link #seek(byte[])} that finds no entry at or after its key leaves the cursor after
 *       the last entry (a {@code prev()} then gives the last entry before that key);
 *       {@link #seekForPrev(byte[])} that finds none at or before its key leaves it before the
 *       first (a {@code next()} then gives the first entry after that key).
 *       {@link #seekToFirst()} and {@link #seekToLast()} on an empty range leave it before the
 *       first entry and after the last respectively.</li>
 *   <li>{@code next()} after {@code prev()} and {@code prev()} after {@code next()} (a change
 *       of direction) are allowed anywhere and step to the neighbouring entry.</li>
 * </ul>
 *
 * <p><b>Reading.</b> A cursor reads every component of the store in place, both ways: no
 * call copies a range into memory. Each key is shown with its newest version visible to the
 * cursor (for {@link LsmStore#scan}, what was written before the cursor was opened; for
 * {@link Snapshot#scan}, what the snapshot sees); deleted keys are skipped. Writes made
 * after it was opened are never seen. A backward step costs more than a forward one (the
 * memtable's skip list has no backward links, so each step back is a search in it), and a
 * change of direction costs about a seek.
 *
 * <p><b>Lifetime.</b> A cursor pins the files it reads until closed, whatever the merges
 * do meanwhile: close it (try-with-resources) when done. Once it or its store is closed,
 * every call but {@link #close()} throws {@link StoreClosedException}; close is idempotent.
 * Closing a snapshot does not close its cursors.
 *
 * <p><b>Threads.</b> Not thread safe: one thread at a time (or callers synchronizing), like
 * RocksDB's iterator. Distinct cursors are independent and may be used from different
 * threads, concurrently with writes to the store.
 *
 * <pre>{@code
 * try (Cursor c = store.scan(from, to)) {
 *     while (c.next()) {                           // ascending
 *         use(c.key(), c.value());
 *     }
 * }
 * try (Cursor c = store.scan(from, to)) {
 *     for (boolean on = c.seekToLast(); on; on = c.prev()) {   // descending
 *         use(c.key(), c.value());
 *     }
 * }
 * }</pre>
 */
public interface Cursor extends AutoCloseable {
    /**
     * Moves to the next key: from before the first entry to the first one. Returns false,
     * leaving the cursor after the last entry, when there is no next key in range.
     *
     * @return true when the cursor is on an entry
     */
    boolean next();

    /**
     * Moves to the previous key: from after the last entry to the last one. Returns false,
     * leaving the cursor before the first entry, when there is no previous key in range; on a
     * new cursor (before its first entry) it therefore returns false.
     *
     * @return true when the cursor is on an entry
     */
    boolean prev();

    /**
     * Moves to the first key at or after {@code key} within the bounds (to the first key of
     * the range when {@code key} is below the lower bound); false when there is none.
     *
     * @param key the key to seek (not null)
     * @return true when the cursor is on an entry
     */
    boolean seek(byte[] key);

    /**
     * Moves to the last key at or before {@code key} within the bounds (to the last key of
     * the range when {@code key} is at or above the upper bound); false when there is none.
     *
     * @param key the key to seek (not null)
     * @return true when the cursor is on an entry
     */
    boolean seekForPrev(byte[] key);

    /**
     * Moves to the first key of the range; false when the range is empty.
     *
     * @return true when the cursor is on an entry
     */
    boolean seekToFirst();

    /**
     * Moves to the last key of the range; false when the range is empty.
     *
     * @return true when the cursor is on an entry
     */
    boolean seekToLast();

    /**
     * The current key; throws {@link IllegalStateException} when not on an entry.
     *
     * @return the current entry's key
     */
    byte[] key();

    /**
     * The current value; throws {@link IllegalStateException} when not on an entry.
     *
     * @return the current entry's value
     */
    byte[] value();

    @Override
    void close();
}
