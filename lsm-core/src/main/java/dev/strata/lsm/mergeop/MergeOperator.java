package dev.strata.lsm.mergeop;

import java.util.List;

/**
 * Combines merge operands with a key's value (RocksDB's {@code MergeOperator}): a
 * {@code store.merge(key, operand)} records the operand, and reads, flushes and merges combine
 * the operands of a key with the value below them. Found by {@link #name()} through
 * {@code ServiceLoader} ({@code META-INF/services/dev.strata.lsm.mergeop.MergeOperator}) and
 * chosen with {@code StoreConfig.Builder.mergeOperator(name)} or {@code <mergeOperator
 * name="..."/>}. Implementations must be stateless and thread safe, and deterministic: the
 * same inputs give the same bytes, whenever and however often the store combines them. With a
 * successive-merge bound ({@code StoreConfig.Builder.maxSuccessiveMerges}) the store may also
 * combine a key's operands in two steps, {@code fullMerge(fullMerge(v, a), b)} where a read
 * after a reopen computes {@code fullMerge(v, a + b)}: an operator used with it must give the
 * same value both ways (the built-in ones do).
 */
public interface MergeOperator {
    /**
     * The name configurations use.
     *
     * @return the operator's registered name, as a store's configuration names it
     */
    String name();

    /**
     * Checks an operand when it is written, before anything changes: throws
     * {@link IllegalArgumentException} naming what is wrong with an operand this operator
     * cannot combine. The default accepts every operand.
     *
     * @param key the key the operand is written under (not null)
     * @param operand the operand bytes being written (not null)
     */
    default void checkOperand(byte[] key, byte[] operand) {
    }

    /**
     * The value of {@code key} after applying {@code operands} (oldest first) to
     * {@code existing}, the value below them (null when the key has none: absent or deleted).
     *
     * @param key the key being merged (not null)
     * @param existing the value below the operands, or null when the key has none
     * @param operands the operands to apply, oldest first (not empty)
     * @return the key's value after the operands
     */
    byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands);

    /**
     * One operand equivalent to {@code operands} (oldest first, at least two), or null when
     * they cannot be combined without the value below them. Flushes and merges use it to
     * shorten the operands of a key; the default combines nothing.
     *
     * @param key the key whose operands are combined (not null)
     * @param operands the operands to combine, oldest first (at least two)
     * @return one operand with the same effect as {@code operands}, or null when they cannot be
     *     combined alone
     */
    default byte[] partialMerge(byte[] key, List<byte[]> operands) {
        return null;
    }
}
