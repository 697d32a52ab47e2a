package dev.strata.lsm.server;

import dev.strata.lsm.mergeop.MergeOperator;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code strata-node-incr}: the merge operator of the node's store, which INCR, INCRBY, DECR
 * and DECRBY write their amounts with (issue 30, item 4). An operand is 16 bytes: the signed
 * amount (8 bytes, big endian), then the expiry time (epoch milliseconds, {@link
 * StoredValue#NEVER} for none) of the value it was added to. A value is the node's stored
 * string ({@link StoredValue}) holding a decimal.
 *
 * <p>The node writes an operand only onto a live integer value, under the key's lock, after
 * checking the sum (not an integer, overflow), so the operator sees no value it cannot add
 * to: a value below the operands keeps its header and expiry, and the amounts are added to
 * its decimal (64-bit wrapping arithmetic: the node checked that every running value fits, so
 * the wrapped sum is the true one, whatever the order partial merges add them in). No value
 * below the operands means the value they were added to is gone without a delete above them:
 * a flush or merge wrote it out as a tombstone because it had expired ({@link
 * StoredValue#EXPIRY}); the result then starts at 0 with the operands' expiry time, which has
 * passed, so the key still reads as missing, as Redis's expired key does (without the expiry
 * in the operand the counter would come back as the sum of the amounts, without a TTL). The
 * result depends on the inputs only, never on the clock. A value that is not a decimal (which
 * the node never adds to) is left as it is.
 *
 * <p>Stateless; thread safe.
 */
public final class NodeIncrOperator implements MergeOperator {
    /** The name the node's store configuration uses. */
    public static final String NAME = "strata-node-incr";
    static final int OPERAND_BYTES = 16;

    @Override
    public String name() {
        return NAME;
    }

    /** The operand adding {@code by} to a value that expires at {@code expireAtMillis}. */
    static byte[] operand(long by, long expireAtMillis) {
        byte[] o = new byte[OPERAND_BYTES];
        NodeKeys.putLong(o, 0, by);
        NodeKeys.putLong(o, 8, expireAtMillis);
        return o;
    }

    @Override
    public void checkOperand(byte[] key, byte[] operand) {
        if (operand.length != OPERAND_BYTES) {
            throw new IllegalArgumentException(NAME + " operand of " + operand.length + " bytes: it must be "
                    + OPERAND_BYTES + " (amount, expiry time)");
        }
    }

    @Override
    public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
        long base = 0;
        long expireAt;
        if (existing != null) {
            StoredValue v;
            try {
                v = StoredValue.decode(existing, Long.MIN_VALUE);
            } catch (RuntimeException e) {
                return existing; // a hash's metadata or unknown bytes: nothing the node added to
            }
            Long parsed = RespCommands.parseLong(v.payload());
            if (parsed == null) {
                return existing;
            }
            base = parsed;
            expireAt = v.expireAtMillis();
        } else {
            expireAt = NodeKeys.readLong(operands.get(operands.size() - 1), 8);
        }
        for (byte[] o : operands) {
            base += NodeKeys.readLong(o, 0);
        }
        return new StoredValue(Long.toString(base).getBytes(StandardCharsets.US_ASCII), expireAt).encode();
    }

    /** The amounts summed (wrapping), with the newest operand's expiry time. */
    @Override
    public byte[] partialMerge(byte[] key, List<byte[]> operands) {
        long sum = 0;
        for (byte[] o : operands) {
            sum += NodeKeys.readLong(o, 0);
        }
        return operand(sum, NodeKeys.readLong(operands.get(operands.size() - 1), 8));
    }
}
