package dev.strata.lsm.blockmerge;

import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;

import java.io.IOException;
import java.util.NoSuchElementException;

/**
 * The entries of another iterator whose user keys lie in {@code [from, to)} (null bounds are
 * open). {@link #seekToFirst()} seeks the underlying iterator to {@code from}, {@link #seekToLast()}
 * to the last entry below {@code to}. Not thread safe;
 * closing closes the underlying iterator.
 */
public final class KeySliceIterator extends ForwardingInternalIterator {
    private final InternalIterator in;
    private final byte[] from;
    private final byte[] to;
    /**
     * Whether the underlying iterator may stand below {@code from}: only after a backward move
     * (forward seeks start at {@code from} or later and {@code next} only goes up), so a forward
     * pass — every merge — compares with one bound only.
     */
    private boolean mayBeBelowFrom;

    /**
     * @param in the underlying iterator
     * @param from smallest user key included, null for no lower bound
     * @param to first user key excluded, null for no upper bound
     */
    public KeySliceIterator(InternalIterator in, byte[] from, byte[] to) {
        if (from != null && to != null && InternalKeys.compareUserKeys(from, to) > 0) {
            throw new IllegalArgumentException("empty key slice: from " + InternalKeys.describe(from) + " is after to "
                    + InternalKeys.describe(to));
        }
        this.in = in;
        this.from = from == null ? null : from.clone();
        this.to = to == null ? null : to.clone();
    }

    @Override
    protected InternalIterator positioned() {
        check();
        return in;
    }

    @Override
    public void seekToFirst() throws IOException {
        mayBeBelowFrom = false;
        if (from == null) {
            in.seekToFirst();
        } else {
            in.seek(from);
        }
    }

    /** Positions at the last entry whose user key is below {@code to}. */
    @Override
    public void seekToLast() throws IOException {
        mayBeBelowFrom = from != null;
        if (to == null) {
            in.seekToLast();
        } else {
            // (to, MAX_SEQNO) is the smallest internal key of `to`: the last entry before it is below to.
            in.seekForPrev(to, InternalKeys.MAX_SEQNO);
            if (in.valid() && InternalKeys.compareUserKeys(in.key(), to) >= 0) {
                in.prev();
            }
        }
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        mayBeBelowFrom = false;
        if (from != null && InternalKeys.compareUserKeys(userKey, from) < 0) {
            in.seek(from);
        } else {
            in.seek(userKey, seqno);
        }
    }

    @Override
    public void seekForPrev(byte[] userKey, long seqno) throws IOException {
        if (to != null && InternalKeys.compareUserKeys(userKey, to) >= 0) {
            seekToLast();
        } else {
            mayBeBelowFrom = from != null;
            in.seekForPrev(userKey, seqno);
        }
    }

    @Override
    public boolean valid() {
        if (!in.valid()) {
            return false;
        }
        byte[] k = in.key();
        return (to == null || InternalKeys.compareUserKeys(k, to) < 0)
                && (!mayBeBelowFrom || InternalKeys.compareUserKeys(k, from) >= 0);
    }

    @Override
    public void next() throws IOException {
        check();
        // At or above from now, and next only goes up.
        mayBeBelowFrom = false;
        in.next();
    }

    @Override
    public void prev() throws IOException {
        check();
        mayBeBelowFrom = from != null;
        in.prev();
    }

    private void check() {
        if (!valid()) {
            throw new NoSuchElementException("key slice iterator is not positioned at an entry");
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
