package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;

import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * A merge's input that stops the merge when the store closes: every
 * {@link #CHECK_EVERY} steps it asks whether the store is closing, and if so {@link #next()}
 * throws {@link MergeStoppedException}. The merge then fails as any failed merge does (its
 * outputs are deleted, its inputs stay as they were, nothing is installed), so a close waits
 * for a running merge only until its next check instead of to its end, as RocksDB's close
 * cancels running compactions. Only pure merges are stopped: a flush, and a merge that
 * carries a flushed memtable, run to their end.
 */
final class StopOnCloseIterator extends ForwardingInternalIterator {
    /** Steps between two checks of the store's state. */
    static final int CHECK_EVERY = 4096;

    /** Thrown by a merge's input when the store has closed under the merge. */
    static final class MergeStoppedException extends IOException {
        MergeStoppedException() {
            super("the store is closing: the merge stopped");
        }
    }

    private final InternalIterator in;
    private final BooleanSupplier closing;
    private int steps;

    StopOnCloseIterator(InternalIterator in, BooleanSupplier closing) {
        this.in = in;
        this.closing = closing;
    }

    @Override
    protected InternalIterator positioned() {
        return in;
    }

    @Override
    public void seekToFirst() throws IOException {
        in.seekToFirst();
    }

    @Override
    public void seekToLast() throws IOException {
        in.seekToLast();
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        in.seek(userKey, seqno);
    }

    @Override
    public boolean valid() {
        return in.valid();
    }

    @Override
    public void next() throws IOException {
        if (++steps == CHECK_EVERY) {
            steps = 0;
            if (closing.getAsBoolean()) {
                throw new MergeStoppedException();
            }
        }
        in.next();
    }

    @Override
    public void prev() throws IOException {
        in.prev();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
