package dev.strata.lsm.mergeop;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * {@code stringappend}: each operand is appended to the value with a ',' between them (the
 * first operand on a missing value is the value), as RocksDB's {@code StringAppendOperator}
 * with its default delimiter.
 */
public final class StringAppendOperator implements MergeOperator {
    /** The name configurations use. */
    public static final String NAME = "stringappend";
    static final byte DELIMITER = ',';

    /** The operator; ServiceLoader calls this. */
    public StringAppendOperator() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean first = true;
        if (existing != null) {
            out.writeBytes(existing);
            first = false;
        }
        for (byte[] o : operands) {
            if (!first) {
                out.write(DELIMITER);
            }
            out.writeBytes(o);
            first = false;
        }
        return out.toByteArray();
    }

    @Override
    public byte[] partialMerge(byte[] key, List<byte[]> operands) {
        return fullMerge(key, null, operands);
    }
}
