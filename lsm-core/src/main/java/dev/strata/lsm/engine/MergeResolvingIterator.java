package dev.strata.lsm.engine;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.mergeop.MergeOperator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A view of a merged internal stream at a read sequence number with every key's merge
 * operands combined: for each user key it exposes one entry, the newest version visible at
 * {@code readSeq} — or, when that is a merge operand, a put of the operator's full merge of
 * the visible operands with the first put below them (none when a tombstone or nothing is
 * below). The cursor above it then sees puts and tombstones only. Forward only. Not thread
 * safe.
 */
final class MergeResolvingIterator implements InternalIterator {
    private final InternalIterator in;
    private final long readSeq;
    private final MergeOperator operator;
    private boolean valid;
    private byte[] key;
    private long seq;
    private EntryType type;
    private byte[] value;

    MergeResolvingIterator(InternalIterator in, long readSeq, MergeOperator operator) {
        this.in = in;
        this.readSeq = readSeq;
        this.operator = operator;
    }

    @Override
    public void seekToFirst() throws IOException {
        in.seekToFirst();
        settle();
    }

    @Override
    public void seek(byte[] userKey) throws IOException {
        in.seek(userKey);
        settle();
    }

    @Override
    public void next() throws IOException {
        settle();
    }

    @Override
    public boolean valid() {
        return valid;
    }

    @Override
    public byte[] key() {
        return key;
    }

    @Override
    public long seqno() {
        return seq;
    }

    @Override
    public EntryType type() {
        return type;
    }

    @Override
    public byte[] value() {
        return value;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Positions on the next user key with a visible version at or after the input's position. */
    private void settle() throws IOException {
        while (in.valid()) {
            if (in.seqno() > readSeq) {
                in.next();
                continue;
            }
            byte[] k = in.key();
            EntryType t = in.type();
            long s = in.seqno();
            if (t != EntryType.MERGE) {
                byte[] v = t == EntryType.DELETE ? null : in.value();
                skipRestOf(k);
                set(k, s, t, v);
                return;
            }
            List<byte[]> operands = new ArrayList<>();
            byte[] base = null;
            while (in.valid() && Arrays.equals(in.key(), k)) {
                if (in.seqno() <= readSeq) {
                    EntryType tt = in.type();
                    if (tt == EntryType.MERGE) {
                        operands.add(in.value());
                    } else {
                        if (tt == EntryType.PUT) {
                            base = in.value();
                        }
                        break;
                    }
                }
                in.next();
            }
            skipRestOf(k);
            Collections.reverse(operands);
            set(k, s, EntryType.PUT, fullMerge(operator, k, base, operands));
            return;
        }
        valid = false;
        key = null;
        value = null;
    }

    private void skipRestOf(byte[] k) throws IOException {
        while (in.valid() && Arrays.equals(in.key(), k)) {
            in.next();
        }
    }

    private void set(byte[] k, long s, EntryType t, byte[] v) {
        valid = true;
        key = k;
        seq = s;
        type = t;
        value = v;
    }

    /** The operator's full merge, or a clear error when the store has merge operands but no operator. */
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
