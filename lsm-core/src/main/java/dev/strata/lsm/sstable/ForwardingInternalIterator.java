package dev.strata.lsm.sstable;

import java.io.IOException;

/**
 * Base of an iterator that moves over another one and exposes that one's current entry
 * (a run over its tables, a sequence bound, a key slice): every accessor of the entry,
 * the value slice included, goes to {@link #positioned()}, so a wrapper writes only how it
 * moves. Not thread safe.
 */
public abstract class ForwardingInternalIterator implements InternalIterator {

    /** The iterator positioned at this one's current entry; may check that there is one. */
    protected abstract InternalIterator positioned();

    @Override
    public byte[] key() {
        return positioned().key();
    }

    @Override
    public long seqno() {
        return positioned().seqno();
    }

    @Override
    public EntryType type() {
        return positioned().type();
    }

    @Override
    public byte[] value() throws IOException {
        return positioned().value();
    }

    @Override
    public byte[] valueArray() throws IOException {
        return positioned().valueArray();
    }

    @Override
    public int valueOffset() {
        return positioned().valueOffset();
    }

    @Override
    public int valueLength() throws IOException {
        return positioned().valueLength();
    }
}
