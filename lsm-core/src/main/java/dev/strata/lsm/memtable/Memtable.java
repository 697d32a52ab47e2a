package dev.strata.lsm.memtable;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.RangeTombstones;

import java.util.NoSuchElementException;


/**
 * The in-memory component: a skip list of internal entries in arenas ({@link ArenaSkipList}).
 * Readers run concurrently with the one writer (the write-group leader); they see only
 * entries whose sequence number their snapshot admits, which is how a half-inserted batch
 * stays invisible.
 *
 * <p>Keys and values are copied in; what readers get back are copies, so neither side can
 * change the other's arrays.
 *
 * <p>Locking: none needed; adds come from one thread at a time and the skip list admits
 * concurrent readers.
 */
public final class Memtable {
    private final ArenaSkipList list;
    private final long walSegment;
    private volatile long maxSeqno;
    /**
     * Smallest sequence number added (0 until the first add): a version whose last sequence
     * number is at or above it holds this memtable's writes (flushes go oldest first and take
     * a memtable whole), which is how a read tells a memtable already in the version it pinned.
     */
    private volatile long minSeqno;
    /**
     * The range tombstones ({@code deleteRange}) added, fragmented beside the skip list and
     * replaced whole by each add (range deletes are rare next to point writes); readers take
     * the reference and filter by their sequence number, so a half-inserted group's tombstone
     * stays invisible like its entries.
     */
    private volatile RangeTombstones rangeTombstones = RangeTombstones.EMPTY;

    /**
     * @param walSegment number of the WAL segment whose records this memtable holds (its
     *     data is durable in that segment and any later one until flushed)
     */
    public Memtable(long walSegment) {
        this(walSegment, false);
    }

    /**
     * @param walSegment number of the WAL segment whose records this memtable holds (its
     *     data is durable in that segment and any later one until flushed)
     * @param offHeap whether the skip list's node and data chunks are in direct memory
     *     (outside the Java heap; freed once the memtable is unreachable) instead of on the heap
     */
    public Memtable(long walSegment, boolean offHeap) {
        this.walSegment = walSegment;
        this.list = new ArenaSkipList(offHeap);
    }

    /**
     * Whether this memtable's entries are in direct memory.
     *
     * @return true when its chunks are off the Java heap
     */
    public boolean offHeap() {
        return list.offHeap();
    }

    /**
     * The WAL segment this memtable was created at: the segment its successor's writes start
     * in once it is flushed, the log number a flush of it records.
     */
    public long walSegment() {
        return walSegment;
    }

    /** Whether writes without the WAL were added (WriteOptions#disableWal): the memtable is their only copy. */
    private volatile boolean unlogged;

    /** Notes that writes about to be added skip the WAL (called before they are added, by the one thread that adds). */
    public void noteUnloggedWrites() {
        if (!unlogged) {
            unlogged = true;
        }
    }

    /**
     * Whether this memtable holds writes made without the WAL: nothing but a flush of it keeps
     * them, so a clean close flushes it (as RocksDB's close flushes unpersisted data).
     *
     * @return true once a write without the WAL was added
     */
    public boolean holdsUnloggedWrites() {
        return unlogged;
    }

    /**
     * The WAL segment of this memtable's first write (-1 before it): a memtable can be created
     * at an old segment and stay empty while other column families roll the log, so this, not
     * {@link #walSegment}, is the oldest segment its writes need kept.
     */
    private volatile long firstWriteSegment = -1;

    /**
     * Notes that writes about to be added are in WAL segment {@code segment} (called before
     * they are added, by the one thread that adds; only the first call counts).
     */
    public void noteWriteSegment(long segment) {
        if (firstWriteSegment < 0) {
            firstWriteSegment = segment;
        }
    }

    /**
     * The oldest WAL segment holding this memtable's writes: that of its first write, or
     * {@link #walSegment} for one whose writes were added without saying (recovery's replay).
     */
    public long firstWriteSegment() {
        long s = firstWriteSegment;
        return s >= 0 ? s : walSegment;
    }

    /** Adds an entry; {@code value} is ignored for a delete. One thread at a time. */
    public void add(byte[] key, long seqno, EntryType type, byte[] value) {
        list.insert(key, seqno, type, value);
        noteSeqno(seqno);
    }

    /**
     * Adds a range tombstone deleting the keys in {@code [from, to)} at {@code seqno} (an empty
     * range is ignored). One thread at a time, as {@link #add}.
     */
    public void addRangeTombstone(byte[] from, byte[] to, long seqno) {
        rangeTombstones = rangeTombstones.with(from, to, seqno);
        noteSeqno(seqno);
    }

    /** The range tombstones added so far (all sequence numbers: readers filter). */
    public RangeTombstones rangeTombstones() {
        return rangeTombstones;
    }

    /** Whether some entry (of any sequence number) has a key in {@code [from, to)}. */
    public boolean hasEntryIn(byte[] from, byte[] to) {
        long node = list.seek(from, dev.strata.lsm.sstable.InternalKeys.MAX_SEQNO);
        return node != 0 && java.util.Arrays.compareUnsigned(list.key(node), to) < 0;
    }

    private void noteSeqno(long seqno) {
        if (seqno > maxSeqno) {
            maxSeqno = seqno;
        }
        long min = minSeqno;
        if (min == 0 || seqno < min) {
            minSeqno = seqno;
        }
    }

    /**
     * Smallest sequence number added; 0 when empty, and possibly for a moment after the first
     * add began (a reader then takes the memtable as not yet flushed, which it is not).
     */
    public long minSeqno() {
        return minSeqno;
    }

    /** Largest sequence number added (0 when empty). */
    public long maxSeqno() {
        return maxSeqno;
    }

    /** Memory the entries occupy in the arenas (nodes, keys and values), in bytes. */
    public long approximateBytes() {
        return list.usedBytes() + rangeTombstones.approximateBytes();
    }

    public boolean isEmpty() {
        return list.size() == 0 && rangeTombstones.isEmpty();
    }

    /** Distinct keys whose newest entry here is a put (overwritten versions count once). */
    public int liveKeyCount() {
        return list.liveKeys();
    }

    /** Distinct keys whose newest entry here is a delete. */
    public int deletedKeyCount() {
        return list.deletedKeys();
    }

    public int entryCount() {
        return list.size();
    }

    /** The newest entry for {@code key} with sequence number <= {@code snapshotSeqno}, or null. */
    public InternalEntry get(byte[] key, long snapshotSeqno) {
        long node = list.newest(key, snapshotSeqno);
        if (node == 0) {
            return null;
        }
        EntryType type = list.type(node);
        return new InternalEntry(key, list.seqno(node), type, type == EntryType.DELETE ? null : list.value(node));
    }

    /**
     * How many merge operands in a row sit on top of {@code key}'s entries here, newest first
     * down to the first entry that is not an operand (or the key's end), counted up to
     * {@code limit}: the operands a read of the key combines from this memtable. One thread
     * at a time with {@link #add} (the write-group leader asks before it adds).
     *
     * @param key the user key
     * @param limit the count to stop at (at least 1)
     * @return the operands counted, at most {@code limit}
     */
    public int successiveMerges(byte[] key, int limit) {
        long node = list.newest(key, dev.strata.lsm.sstable.InternalKeys.MAX_SEQNO);
        int n = 0;
        while (node != 0 && n < limit && list.type(node) == EntryType.MERGE && list.keyEquals(node, key)) {
            n++;
            node = list.next(node);
        }
        return n;
    }

    /**
     * A cursor over all entries, both ways (weakly consistent: entries added later may or may
     * not appear). Stepping back searches the skip list for the predecessor.
     */
    public InternalIterator iterator() {
        return new Cursor();
    }

    private final class Cursor implements InternalIterator {
        private long node;
        private byte[] key;

        @Override
        public void seekToFirst() {
            position(list.first());
        }

        @Override
        public void seekToLast() {
            position(list.last());
        }

        @Override
        public void seek(byte[] userKey, long seqno) {
            position(list.seek(userKey, seqno));
        }

        @Override
        public void seekForPrev(byte[] userKey, long seqno) {
            position(list.atOrBefore(userKey, seqno));
        }

        private void position(long at) {
            node = at;
            key = null;
        }

        @Override
        public boolean valid() {
            return node != 0;
        }

        @Override
        public void next() {
            checkValid();
            position(list.next(node));
        }

        /** One load: the list keeps a back link on level 0. */
        @Override
        public void prev() {
            checkValid();
            position(list.previous(node));
        }

        private void checkValid() {
            if (node == 0) {
                throw new NoSuchElementException("memtable cursor is not positioned at an entry");
            }
        }

        @Override
        public byte[] key() {
            if (key == null) {
                key = list.key(node);
            }
            return key;
        }

        @Override
        public long seqno() {
            return list.seqno(node);
        }

        @Override
        public EntryType type() {
            return list.type(node);
        }

        @Override
        public byte[] value() {
            return list.value(node);
        }
    }
}
