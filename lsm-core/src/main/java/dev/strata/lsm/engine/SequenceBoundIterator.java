package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;

import java.io.IOException;

/**
 * The entries of another iterator whose sequence numbers are at most a bound: what a
 * flush writes of a memtable, leaving out any part of a write group that failed half-way
 * (it was never made visible, so it must not become visible through a table either).
 */
final class SequenceBoundIterator implements InternalIterator {
    private final InternalIterator source;
    private final long maxSeqno;

    SequenceBoundIterator(InternalIterator source, long maxSeqno) {
        this.source = source;
        this.maxSeqno = maxSeqno;
    }

    @Override
    public void seekToFirst() throws IOException {
        source.seekToFirst();
        skipInvisible();
    }

    @Override
    public void seek(byte[] userKey) throws IOException {
        source.seek(userKey);
        skipInvisible();
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

    private void skipInvisible() throws IOException {
        while (source.valid() && source.seqno() > maxSeqno) {
            source.next();
        }
    }

    @Override
    public byte[] key() {
        return source.key();
    }

    @Override
    public long seqno() {
        return source.seqno();
    }

    @Override
    public EntryType type() {
        return source.type();
    }

    @Override
    public byte[] value() throws IOException {
        return source.value();
    }

    @Override
    public byte[] valueArray() throws IOException {
        return source.valueArray();
    }

    @Override
    public int valueOffset() {
        return source.valueOffset();
    }

    @Override
    public int valueLength() throws IOException {
        return source.valueLength();
    }

    @Override
    public void close() throws IOException {
        source.close();
    }
}
