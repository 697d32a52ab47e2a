package dev.strata.lsm.sstable;

import java.util.List;
import java.util.NoSuchElementException;

/**
 * An {@link InternalIterator} over a list of entries already in internal-key order: a block
 * compaction keeps each child's slice of the parents' entries in memory so that it reads the
 * parents once for both the plan and the merge; tests feed writers with it. The list is not
 * copied and must not change while the iterator is used. Not thread safe.
 */
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
    public void seekToLast() {
        position = entries.size() - 1;
    }

    /** Positions at the first entry whose internal key is >= {@code (userKey, seqno)} (a binary search). */
    @Override
    public void seek(byte[] userKey, long seqno) {
        int lo = 0;
        int hi = entries.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            InternalEntry e = entries.get(mid);
            if (InternalKeys.compare(e.key(), e.seqno(), userKey, seqno) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        position = lo;
    }

    @Override
    public boolean valid() {
        return position >= 0 && position < entries.size();
    }

    @Override
    public void next() {
        current();
        position++;
    }

    @Override
    public void prev() {
        current();
        position--;
    }

    private InternalEntry current() {
        if (!valid()) {
            throw new NoSuchElementException("entry list iterator is not positioned at an entry");
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
