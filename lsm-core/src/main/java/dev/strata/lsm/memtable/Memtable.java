package dev.strata.lsm.memtable;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory component: a concurrent skip list of internal entries. Readers run
 * concurrently with the one writer (the write-group leader); they see only entries whose
 * sequence number their snapshot admits, which is how a half-inserted batch stays
 * invisible.
 *
 * <p>Locking: none needed; the skip list is concurrent and the byte counter atomic.
 */
public final class Memtable {
    /** Bytes charged per entry on top of key and value (skip-list node, key object, trailer). */
    static final int ENTRY_OVERHEAD = 64;
    private static final byte[] TOMBSTONE = new byte[0];

    private final ConcurrentSkipListMap<Key, byte[]> map = new ConcurrentSkipListMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final long walSegment;
    private volatile long maxSeqno;

    /**
     * Key of the skip list: user key plus sequence number, in internal-key order. The first
     * eight key bytes are kept as an unsigned number so that most comparisons decide
     * without touching the key arrays (fewer cache misses in a large memtable).
     */
    private static final class Key implements Comparable<Key> {
        final byte[] userKey;
        final long seqno;
        final EntryType type;
        final long prefix;

        Key(byte[] userKey, long seqno, EntryType type) {
            this.userKey = userKey;
            this.seqno = seqno;
            this.type = type;
            this.prefix = prefixOf(userKey);
        }

        @Override
        public int compareTo(Key o) {
            int c = Long.compareUnsigned(prefix, o.prefix);
            if (c == 0) {
                c = Arrays.compareUnsigned(userKey, o.userKey);
            }
            return c != 0 ? c : Long.compare(o.seqno, seqno);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && compareTo(k) == 0;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(userKey) * 31 + Long.hashCode(seqno);
        }
    }

    /** The first eight bytes of {@code key}, big-endian, zero padded: orders like the bytes. */
    static long prefixOf(byte[] key) {
        long p = 0;
        int n = Math.min(8, key.length);
        for (int i = 0; i < n; i++) {
            p |= (key[i] & 0xffL) << (56 - 8 * i);
        }
        return p;
    }

    /**
     * @param walSegment number of the WAL segment whose records this memtable holds (its
     *     data is durable in that segment and any later one until flushed)
     */
    public Memtable(long walSegment) {
        this.walSegment = walSegment;
    }

    /** The first WAL segment holding this memtable's writes. */
    public long walSegment() {
        return walSegment;
    }

    /** Adds an entry. The arrays must not be modified afterwards. */
    public void add(byte[] key, long seqno, EntryType type, byte[] value) {
        map.put(new Key(key, seqno, type), type == EntryType.DELETE ? TOMBSTONE : value);
        if (seqno > maxSeqno) {
            // Only the write-group leader (or recovery) adds, one thread at a time.
            maxSeqno = seqno;
        }
        bytes.addAndGet(key.length + (value == null ? 0 : value.length) + ENTRY_OVERHEAD);
    }

    /** Largest sequence number added (0 when empty). */
    public long maxSeqno() {
        return maxSeqno;
    }

    /** Approximate memory held, in bytes. */
    public long approximateBytes() {
        return bytes.get();
    }

    public boolean isEmpty() {
        return map.isEmpty();
    }

    public int entryCount() {
        return map.size();
    }

    /** The newest entry for {@code key} with sequence number <= {@code snapshotSeqno}, or null. */
    public InternalEntry get(byte[] key, long snapshotSeqno) {
        Map.Entry<Key, byte[]> e = map.ceilingEntry(new Key(key, snapshotSeqno, EntryType.PUT));
        if (e == null || !Arrays.equals(e.getKey().userKey, key)) {
            return null;
        }
        Key k = e.getKey();
        return new InternalEntry(k.userKey, k.seqno, k.type, k.type == EntryType.DELETE ? null : e.getValue());
    }

    /** A cursor over all entries (weakly consistent: entries added later may or may not appear). */
    public InternalIterator iterator() {
        return new Cursor();
    }

    private final class Cursor implements InternalIterator {
        private Iterator<Map.Entry<Key, byte[]>> it;
        private Map.Entry<Key, byte[]> current;

        @Override
        public void seekToFirst() {
            position(map);
        }

        @Override
        public void seek(byte[] userKey) {
            position(map.tailMap(new Key(userKey, InternalKeys.MAX_SEQNO, EntryType.PUT), true));
        }

        private void position(ConcurrentNavigableMap<Key, byte[]> from) {
            it = from.entrySet().iterator();
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public boolean valid() {
            return current != null;
        }

        @Override
        public void next() {
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public byte[] key() {
            return current.getKey().userKey;
        }

        @Override
        public long seqno() {
            return current.getKey().seqno;
        }

        @Override
        public EntryType type() {
            return current.getKey().type;
        }

        @Override
        public byte[] value() {
            return current.getKey().type == EntryType.DELETE ? null : current.getValue();
        }
    }
}
