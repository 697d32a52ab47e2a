package dev.strata.lsm.engine;

import dev.strata.lsm.mergeop.MergeOperator;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Combines merge operands in a flush's or merge's input (RocksDB's {@code MergeHelper}):
 * within one snapshot stripe ({@link VersionRetention#stripe}), a run of a key's operands
 * down to a put or tombstone becomes one put of their full merge; a run that reaches the end
 * of the key's versions becomes a put too when the output is bottommost (nothing older can
 * lie below), else one operand of their partial merge where the operator gives one. Operands
 * in different stripes stay apart: a snapshot between them reads the value in between.
 * Everything else passes through untouched (no copy) — only a key whose stripe starts with
 * an operand is buffered. Forward only; feeds {@link TableOutput}, whose retention then
 * drops what the stripes no longer need. Not thread safe.
 */
final class MergeCollapsingIterator implements InternalIterator {
    private record Entry(byte[] key, long seq, EntryType type, byte[] value) {
    }

    private final InternalIterator in;
    private final VersionRetention stripes;
    private final boolean bottommost;
    private final MergeOperator operator;
    private final ArrayDeque<Entry> buffered = new ArrayDeque<>();
    /** The key of the last entry handed on, and its stripe. */
    private byte[] lastKey;
    private int lastStripe = -1;

    MergeCollapsingIterator(InternalIterator in, VersionRetention stripes, boolean bottommost, MergeOperator operator) {
        this.in = in;
        this.stripes = stripes;
        this.bottommost = bottommost;
        this.operator = operator;
    }

    /** A collapsing view of {@code in}, starting where {@code in} is positioned now. */
    static MergeCollapsingIterator atInput(InternalIterator in, VersionRetention retention, MergeOperator operator)
            throws IOException {
        MergeCollapsingIterator it = new MergeCollapsingIterator(in, retention, retention.bottommost(), operator);
        it.settle();
        return it;
    }

    @Override
    public void seekToFirst() throws IOException {
        in.seekToFirst();
        buffered.clear();
        lastKey = null;
        settle();
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        in.seek(userKey, seqno);
        buffered.clear();
        lastKey = null;
        settle();
    }

    /** Not supported: a flush's or merge's input is read forward only. */
    @Override
    public void seekToLast() {
        throw new UnsupportedOperationException("combined merge operands are read forward only");
    }

    /** Not supported: a flush's or merge's input is read forward only. */
    @Override
    public void prev() {
        throw new UnsupportedOperationException("combined merge operands are read forward only");
    }

    @Override
    public void next() throws IOException {
        if (!buffered.isEmpty()) {
            buffered.poll();
            if (!buffered.isEmpty()) {
                return;
            }
        } else {
            in.next();
        }
        settle();
    }

    @Override
    public boolean valid() {
        return !buffered.isEmpty() || in.valid();
    }

    @Override
    public byte[] key() {
        return buffered.isEmpty() ? in.key() : buffered.peek().key();
    }

    @Override
    public long seqno() {
        return buffered.isEmpty() ? in.seqno() : buffered.peek().seq();
    }

    @Override
    public EntryType type() {
        return buffered.isEmpty() ? in.type() : buffered.peek().type();
    }

    @Override
    public byte[] value() throws IOException {
        return buffered.isEmpty() ? in.value() : buffered.peek().value();
    }

    @Override
    public byte[] valueArray() throws IOException {
        return buffered.isEmpty() ? in.valueArray() : buffered.peek().value();
    }

    @Override
    public int valueOffset() {
        return buffered.isEmpty() ? in.valueOffset() : 0;
    }

    @Override
    public int valueLength() throws IOException {
        if (buffered.isEmpty()) {
            return in.valueLength();
        }
        byte[] v = buffered.peek().value();
        return v == null ? 0 : v.length;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /**
     * With the input on a fresh entry and nothing buffered: if it opens a stripe of its key
     * with an operand, buffers that stripe's combined result.
     */
    private void settle() throws IOException {
        while (buffered.isEmpty() && in.valid()) {
            byte[] k = in.key();
            int stripe = stripes.stripe(in.seqno());
            boolean opensStripe = lastKey == null || !Arrays.equals(k, lastKey) || stripe != lastStripe;
            lastKey = k;
            lastStripe = stripe;
            if (!opensStripe || in.type() != EntryType.MERGE) {
                return; // handed on as it is
            }
            collapseStripe(k, stripe);
        }
    }

    /** Reads the operands opening {@code stripe} of {@code key} (and their base, if in the stripe) and buffers the result. */
    private void collapseStripe(byte[] key, int stripe) throws IOException {
        long newest = in.seqno();
        List<Entry> ops = new ArrayList<>(); // newest first
        Entry base = null;
        boolean keyEnds = true;
        while (in.valid() && Arrays.equals(in.key(), key)) {
            if (stripes.stripe(in.seqno()) != stripe) {
                keyEnds = false;
                break;
            }
            EntryType t = in.type();
            if (t == EntryType.MERGE) {
                ops.add(new Entry(key, in.seqno(), t, in.value()));
                in.next();
                continue;
            }
            base = new Entry(key, in.seqno(), t, t == EntryType.DELETE ? null : in.value());
            in.next();
            // The rest of the stripe is hidden under the base: skip it.
            while (in.valid() && Arrays.equals(in.key(), key) && stripes.stripe(in.seqno()) == stripe) {
                in.next();
            }
            keyEnds = !(in.valid() && Arrays.equals(in.key(), key));
            break;
        }
        List<byte[]> operands = new ArrayList<>(ops.size());
        for (int i = ops.size() - 1; i >= 0; i--) {
            operands.add(ops.get(i).value()); // oldest first
        }
        if (base != null || (keyEnds && bottommost)) {
            byte[] existing = base != null && base.type() == EntryType.PUT ? base.value() : null;
            buffered.add(new Entry(key, newest, EntryType.PUT,
                    MergeOperands.fullMerge(operator, key, existing, operands)));
        } else {
            byte[] combined = operands.size() > 1 ? operator.partialMerge(key, operands) : null;
            if (combined != null) {
                buffered.add(new Entry(key, newest, EntryType.MERGE, combined));
            } else {
                buffered.addAll(ops); // as they were, newest first
            }
        }
        // The next entry after the buffer is the input's current one (another stripe or key).
        lastKey = key;
        lastStripe = stripe;
    }
}
