package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;

import java.io.IOException;

/**
 * The entries of another iterator whose sequence numbers are at most a bound: what a
 * flush writes of a memtable, leaving out any part of a write group that failed half-way
 * (it was never made visible, so it must not become visible through a table either).
 */
final class SequenceBoundIterator extends ForwardingInternalIterator {
    private final InternalIterator source;
    private final long maxSeqno;

    SequenceBoundIterator(InternalIterator source, long maxSeqno) {
        this.source = source;
        this.maxSeqno = maxSeqno;
    }

    @Override
    protected InternalIterator positioned() {
        return source;
    }

    @Override
    public void seekToFirst() throws IOException {
        source.seekToFirst();
        skipInvisible();
    }

    @Override
    public void seekToLast() throws IOException {
        source.seekToLast();
        skipInvisibleBackward();
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        source.seek(userKey, seqno);
        skipInvisible();
    }

    @Override
    public void seekForPrev(byte[] userKey, long seqno) throws IOException {
        source.seekForPrev(userKey, seqno);
        skipInvisibleBackward();
    }

    @Override
    public boolean valid() {
        return source.valid();
    }

    @Override
    public void next() throws IOException {
        source.next();
        skipInvisible();
    }

    @Override
    public void prev() throws IOException {
        source.prev();
        skipInvisibleBackward();
    }

    private void skipInvisible() throws IOException {
        while (source.valid() && source.seqno() > maxSeqno) {
            source.next();
        }
    }

    private void skipInvisibleBackward() throws IOException {
        while (source.valid() && source.seqno() > maxSeqno) {
            source.prev();
        }
    }

    @Override
    public void close() throws IOException {
        source.close();
    }
}
