package dev.strata.lsm.mergeop;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * {@code uint64add}: operands and values are 8-byte big-endian unsigned integers; an operand
 * adds to the value (a missing value counts as 0), wrapping at 2^64. Operands of another
 * length are refused when written; a stored value of another length is treated as 0 and
 * replaced (as RocksDB's {@code UInt64AddOperator} does with a corrupt value, logged there).
 */
public final class Uint64AddOperator implements MergeOperator {
    /** The name configurations use. */
    public static final String NAME = "uint64add";

    /** The operator; ServiceLoader calls this. */
    public Uint64AddOperator() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void checkOperand(byte[] key, byte[] operand) {
        if (operand.length != Long.BYTES) {
            throw new IllegalArgumentException("uint64add operand of " + operand.length
                    + " bytes: it must be an 8-byte big-endian unsigned integer");
        }
    }

    @Override
    public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
        long sum = existing != null && existing.length == Long.BYTES ? ByteBuffer.wrap(existing).getLong() : 0;
        for (byte[] o : operands) {
            sum += decode(o);
        }
        return ByteBuffer.allocate(Long.BYTES).putLong(sum).array();
    }

    @Override
    public byte[] partialMerge(byte[] key, List<byte[]> operands) {
        return fullMerge(key, null, operands);
    }

    private static long decode(byte[] operand) {
        return operand.length == Long.BYTES ? ByteBuffer.wrap(operand).getLong() : 0;
    }
}
