package dev.strata.lsm.mergeop;

import java.util.List;

/**
 * Combines merge operands with a key's value (RocksDB's {@code MergeOperator}): a
 * {@code store.merge(key, operand)} records the operand, and reads, flushes and merges combine
 * the operands of a key with the value below them. Found by {@link #name()} through
 * {@code ServiceLoader} ({@code META-INF/services/dev.strata.lsm.mergeop.MergeOperator}) and
 * chosen with {@code StoreConfig.Builder.mergeOperator(name)} or {@code <mergeOperator
 * name="..."/>}. Implementations must be stateless and thread safe, and deterministic: the
 * same inputs give the same bytes, whenever and however often the store combines them.
 */
public interface MergeOperator {
    /** The name configurations use. */
    String name();

    /**
     * Checks an operand when it is written, before anything changes: throws
     * {@link IllegalArgumentException} naming what is wrong with an operand this operator
     * cannot combine. The default accepts every operand.
     */
    default void checkOperand(byte[] key, byte[] operand) {
    }

    /**
     * The value of {@code key} after applying {@code operands} (oldest first) to
     * {@code existing}, the value below them (null when the key has none: absent or deleted).
     */
    byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands);

    /**
     * One operand equivalent to {@code operands} (oldest first, at least two), or null when
     * they cannot be combined without the value below them. Flushes and merges use it to
     * shorten the operands of a key; the default combines nothing.
     */
    default byte[] partialMerge(byte[] key, List<byte[]> operands) {
        return null;
    }
}
