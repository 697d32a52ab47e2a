package dev.strata.lsm;

/**
 * A forward cursor over live keys in a range, in unsigned-lexicographic key order, as of
 * the moment it was opened. Close it to release the files it pins. Not thread safe.
 *
 * <pre>{@code
 * try (Cursor c = store.scan(from, to)) {
 *     while (c.next()) {
 *         use(c.key(), c.value());
 *     }
 * }
 * }</pre>
 */
public interface Cursor extends AutoCloseable {
    /** Moves to the next key; false when the range is exhausted. */
    boolean next();

    /** The current key. */
    byte[] key();

    /** The current value. */
    byte[] value();

    @Override
    void close();
}
