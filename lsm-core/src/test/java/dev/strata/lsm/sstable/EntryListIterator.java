package dev.strata.lsm.sstable;

import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/** An {@link InternalIterator} over a list of entries already in internal-key order (tests of any package). */
public final class EntryListIterator implements InternalIterator {
    private final List<InternalEntry> entries;
    private int position;

    public EntryListIterator(List<InternalEntry> entries) {
        this.entries = entries;
    }

    @Override
    public void seekToFirst() {
        position = 0;
    }

    @Override
    public void seek(byte[] userKey) {
        position = 0;
        while (position < entries.size() && Arrays.compareUnsigned(entries.get(position).key(), userKey) < 0) {
            position++;
        }
    }

    @Override
    public boolean valid() {
        return position < entries.size();
    }

    @Override
    public void next() {
        if (!valid()) {
            throw new NoSuchElementException();
        }
        position++;
    }

    private InternalEntry current() {
        if (!valid()) {
            throw new NoSuchElementException();
        }
        return entries.get(position);
    }

    @Override
    public byte[] key() {
        return current().key();
    }

    @Override
    public long seqno() {
        return current().seqno();
    }

    @Override
    public EntryType type() {
        return current().type();
    }

    @Override
    public byte[] value() {
        return current().value();
    }
}
