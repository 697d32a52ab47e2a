package dev.strata.lsm.engine;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.mergeop.MergeOperator;
import dev.strata.lsm.sstable.InternalKeys;

import java.util.List;

/** Combining a key's merge operands on the read path and in flushes and merges. */
final class MergeOperands {
    private MergeOperands() {
    }

    /**
     * The operator's full merge of {@code operands} (oldest first) onto {@code base} (null:
     * none); a clear error when the store holds operands but has no operator.
     */
    static byte[] fullMerge(MergeOperator operator, byte[] key, byte[] base, List<byte[]> operands) {
        if (operator == null) {
            throw new StoreException("key " + InternalKeys.describe(key) + " has merge operands, but the store was "
                    + "opened without a merge operator: configure the one they were written with");
        }
        byte[] merged = operator.fullMerge(key, base, operands);
        if (merged == null) {
            throw new StoreException("merge operator " + operator.name() + " returned no value for key "
                    + InternalKeys.describe(key));
        }
        return merged;
    }
}
