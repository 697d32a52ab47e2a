package dev.strata.lsm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Puts, deletes, range deletes and merge operands applied atomically by {@link LsmStore#write}: after a crash either all
 * of them are there or none, and no reader ever sees part of a batch. Not thread safe; the
 * store copies nothing, so do not modify the arrays after adding them.
 */
public final class WriteBatch {

    /**
     * One operation of a batch: a put, a delete ({@code delete}, no value), a merge operand
     * ({@code merge}, the operand as its value) or a range delete ({@code rangeDelete}: the keys
     * from {@code key} inclusive to {@code value} exclusive).
     */
    public record Op(boolean delete, byte[] key, byte[] value, boolean merge, boolean rangeDelete,
            ColumnFamily family) {
        /**
         * A put or a delete in the default family.
         *
         * @param delete true for a delete (no value)
         * @param key the key
         * @param value the value, or null for a delete
         */
        public Op(boolean delete, byte[] key, byte[] value) {
            this(delete, key, value, false, false, null);
        }

        /**
         * A put, a delete or a merge operand of the default family.
         *
         * @param delete true for a delete (no value)
         * @param key the key
         * @param value the value or merge operand, or null for a delete
         * @param merge true for a merge operand
         */
        public Op(boolean delete, byte[] key, byte[] value, boolean merge) {
            this(delete, key, value, merge, false, null);
        }

        /**
         * The id of the operation's column family (0, the default family's, when none was given).
         *
         * @return the family's id
         */
        public int familyId() {
            return family == null ? 0 : family.id();
        }
    }

    private final List<Op> ops;
    private long approximateBytes;

    /** An empty batch. */
    public WriteBatch() {
        ops = new ArrayList<>();
    }

    /**
     * An empty batch with room for {@code expectedOps} operations before it grows (a batch of
     * many operations built at once then never copies its list of them).
     *
     * @param expectedOps the operations expected (not negative; the batch grows past them)
     * @throws IllegalArgumentException if {@code expectedOps} is negative
     */
    public WriteBatch(int expectedOps) {
        if (expectedOps < 0) {
            throw new IllegalArgumentException("expectedOps must not be negative, was " + expectedOps);
        }
        ops = new ArrayList<>(expectedOps);
    }

    /**
     * Sets {@code key} to {@code value} in the default family.
     *
     * @param key the key (not null)
     * @param value the value (not null)
     * @return this batch
     */
    public WriteBatch put(byte[] key, byte[] value) {
        return add(null, key, value, false);
    }

    /**
     * Sets {@code key} to {@code value} in {@code family}. The family's handle is checked when
     * the batch is written (a dropped family or another store's handle fails the whole batch).
     *
     * @param family the family written
     * @param key the key (not null)
     * @param value the value (not null)
     * @return this batch
     */
    public WriteBatch put(ColumnFamily family, byte[] key, byte[] value) {
        return add(checkFamily(family), key, value, false);
    }

    /**
     * Records a merge {@code operand} for {@code key} in {@code family} (see {@link #merge(byte[],
     * byte[])}).
     *
     * @param family the family written
     * @param key the key (not null)
     * @param operand the merge operand (not null)
     * @return this batch
     */
    public WriteBatch merge(ColumnFamily family, byte[] key, byte[] operand) {
        return add(checkFamily(family), key, operand, true);
    }

    /**
     * Removes {@code key} from {@code family}.
     *
     * @param family the family written
     * @param key the key (not null)
     * @return this batch
     */
    public WriteBatch delete(ColumnFamily family, byte[] key) {
        return remove(checkFamily(family), key);
    }

    private static ColumnFamily checkFamily(ColumnFamily family) {
        if (family == null) {
            throw new IllegalArgumentException("column family must not be null (the calls without one use the default"
                    + " family)");
        }
        return family;
    }

    private WriteBatch add(ColumnFamily family, byte[] key, byte[] value, boolean merge) {
        if (merge) {
            if (key == null) {
                throw new IllegalArgumentException("key must not be null");
            }
            if (value == null) {
                throw new IllegalArgumentException("merge operand must not be null");
            }
            ops.add(new Op(false, key, value, true, false, family));
            approximateBytes += key.length + value.length + 16;
            return this;
        }
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete to remove a key)");
        }
        ops.add(new Op(false, key, value, false, false, family));
        approximateBytes += key.length + value.length + 16;
        return this;
    }

    /**
     * Records {@code operand} for {@code key}, combined with the key's value by the store's
     * merge operator (see {@link LsmStore#merge}).
     *
     * @param key the key (not null)
     * @param operand the merge operand (not null)
     * @return this batch
     */
    public WriteBatch merge(byte[] key, byte[] operand) {
        return add(null, key, operand, true);
    }

    /**
     * Removes {@code key} from the default family.
     *
     * @param key the key (not null)
     * @return this batch
     */
    public WriteBatch delete(byte[] key) {
        return remove(null, key);
    }

    private WriteBatch remove(ColumnFamily family, byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        ops.add(new Op(true, key, null, false, false, family));
        approximateBytes += key.length + 16;
        return this;
    }

    /**
     * Deletes every key in {@code [fromInclusive, toExclusive)} (unsigned lexicographic order,
     * the store's key order) that was written before this operation, as
     * {@link LsmStore#deleteRange}: one operation, however many keys the range holds.
     * {@code fromInclusive == toExclusive} is an empty range (it deletes nothing).
     *
     * @param fromInclusive the first key deleted
     * @param toExclusive the key the range ends before (not deleted)
     * @return this batch
     * @throws IllegalArgumentException if a key is null or {@code fromInclusive} sorts after
     *     {@code toExclusive} (the message names both)
     */
    public WriteBatch deleteRange(byte[] fromInclusive, byte[] toExclusive) {
        return rangeDelete(null, fromInclusive, toExclusive);
    }

    /**
     * Deletes every key in {@code [fromInclusive, toExclusive)} of {@code family} written before
     * this operation (see {@link #deleteRange(byte[], byte[])}); other families are untouched.
     *
     * @param family the family written
     * @param fromInclusive the first key deleted
     * @param toExclusive the key the range ends before (not deleted)
     * @return this batch
     */
    public WriteBatch deleteRange(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
        return rangeDelete(checkFamily(family), fromInclusive, toExclusive);
    }

    private WriteBatch rangeDelete(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
        if (fromInclusive == null || toExclusive == null) {
            throw new IllegalArgumentException("deleteRange keys must not be null");
        }
        if (java.util.Arrays.compareUnsigned(fromInclusive, toExclusive) > 0) {
            throw new IllegalArgumentException("deleteRange from " + dev.strata.lsm.sstable.InternalKeys.describe(
                    fromInclusive) + " is after to " + dev.strata.lsm.sstable.InternalKeys.describe(toExclusive)
                    + " (keys compare as unsigned bytes)");
        }
        ops.add(new Op(false, fromInclusive, toExclusive, false, true, family));
        approximateBytes += fromInclusive.length + toExclusive.length + 16;
        return this;
    }

    /**
     * Number of operations.
     *
     * @return the number of operations
     */
    public int size() {
        return ops.size();
    }

    /**
     * Whether the batch holds no operation.
     *
     * @return true when the batch is empty
     */
    public boolean isEmpty() {
        return ops.isEmpty();
    }

    /** Removes every operation. */
    public void clear() {
        ops.clear();
        approximateBytes = 0;
    }

    /**
     * The operations in order.
     *
     * @return an unmodifiable view of the operations, in the order they were added
     */
    public List<Op> ops() {
        return Collections.unmodifiableList(ops);
    }

    /**
     * Approximate encoded size: 16 bytes per operation plus its key and value, never less than the
     * WAL encoding takes.
     *
     * @return the approximate encoded size in bytes
     */
    public long approximateBytes() {
        return approximateBytes;
    }
}
