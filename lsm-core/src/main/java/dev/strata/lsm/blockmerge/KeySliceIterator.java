package dev.strata.lsm.blockmerge;

import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;

import java.io.IOException;
import java.util.NoSuchElementException;

/**
 * The entries of another iterator whose user keys lie in {@code [from, to)} (null bounds are
 * open). {@link #seekToFirst()} seeks the underlying iterator to {@code from}. Not thread safe;
 * closing closes the underlying iterator.
 */
public final class KeySliceIterator extends ForwardingInternalIterator {
    private final InternalIterator in;
    private final byte[] from;
    private final byte[] to;

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
        if (from == null) {
            in.seekToFirst();
        } else {
            in.seek(from);
        }
    }

    @Override
    public void seek(byte[] userKey) throws IOException {
        in.seek(from != null && InternalKeys.compareUserKeys(userKey, from) < 0 ? from : userKey);
    }

    @Override
    public boolean valid() {
        return in.valid() && (to == null || InternalKeys.compareUserKeys(in.key(), to) < 0);
    }

    @Override
    public void next() throws IOException {
        check();
        in.next();
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
