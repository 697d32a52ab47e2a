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
    public record Op(boolean delete, byte[] key, byte[] value, boolean merge, boolean rangeDelete) {
        /** A put or a delete. */
        public Op(boolean delete, byte[] key, byte[] value) {
            this(delete, key, value, false, false);
        }

        /** A put, a delete or a merge operand. */
        public Op(boolean delete, byte[] key, byte[] value, boolean merge) {
            this(delete, key, value, merge, false);
        }
    }

    private final List<Op> ops = new ArrayList<>();
    private long approximateBytes;

    /** Sets {@code key} to {@code value}. */
    public WriteBatch put(byte[] key, byte[] value) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete to remove a key)");
        }
        ops.add(new Op(false, key, value));
        approximateBytes += key.length + value.length + 16;
        return this;
    }

    /**
     * Records {@code operand} for {@code key}, combined with the key's value by the store's
     * merge operator (see {@link LsmStore#merge}).
     */
    public WriteBatch merge(byte[] key, byte[] operand) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (operand == null) {
            throw new IllegalArgumentException("merge operand must not be null");
        }
        ops.add(new Op(false, key, operand, true));
        approximateBytes += key.length + operand.length + 16;
        return this;
    }

    /** Removes {@code key}. */
    public WriteBatch delete(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        ops.add(new Op(true, key, null));
        approximateBytes += key.length + 16;
        return this;
    }

    /**
     * Deletes every key in {@code [fromInclusive, toExclusive)} (unsigned lexicographic order,
     * the store's key order) that was written before this operation, as
     * {@link LsmStore#deleteRange}: one operation, however many keys the range holds.
     * {@code fromInclusive == toExclusive} is an empty range (it deletes nothing).
     *
     * @throws IllegalArgumentException if a key is null or {@code fromInclusive} sorts after
     *     {@code toExclusive} (the message names both)
     */
    public WriteBatch deleteRange(byte[] fromInclusive, byte[] toExclusive) {
        if (fromInclusive == null || toExclusive == null) {
            throw new IllegalArgumentException("deleteRange keys must not be null");
        }
        if (java.util.Arrays.compareUnsigned(fromInclusive, toExclusive) > 0) {
            throw new IllegalArgumentException("deleteRange from " + dev.strata.lsm.sstable.InternalKeys.describe(
                    fromInclusive) + " is after to " + dev.strata.lsm.sstable.InternalKeys.describe(toExclusive)
                    + " (keys compare as unsigned bytes)");
        }
        ops.add(new Op(false, fromInclusive, toExclusive, false, true));
        approximateBytes += fromInclusive.length + toExclusive.length + 16;
        return this;
    }

    /** Number of operations. */
    public int size() {
        return ops.size();
    }

    public boolean isEmpty() {
        return ops.isEmpty();
    }

    /** Removes every operation. */
    public void clear() {
        ops.clear();
        approximateBytes = 0;
    }

    /** The operations in order. */
    public List<Op> ops() {
        return Collections.unmodifiableList(ops);
    }

    /** Approximate encoded size: 16 bytes per operation plus its key and value, never less than the WAL encoding takes. */
    public long approximateBytes() {
        return approximateBytes;
    }
}
