package dev.strata.lsm.kafka;

import dev.strata.lsm.WriteBatch;
import org.apache.kafka.common.utils.Bytes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The writes a store has taken since its last commit, newest value per key, kept in key
 * order so that reads and ranges see them before they reach Strata. A commit moves them,
 * with the changelog offsets, into one {@link WriteBatch}.
 *
 * <p>Not thread safe: the owning store guards it with its lock.
 */
final class UncommittedWrites {
    /** Marks a deleted key; compared by identity. */
    static final byte[] TOMBSTONE = new byte[0];

    private static final long ENTRY_OVERHEAD = 48;

    private final TreeMap<Bytes, byte[]> writes = new TreeMap<>();
    private long approximateBytes;

    /** Records {@code value} for {@code key}; a null value records a delete. */
    void put(Bytes key, byte[] value) {
        byte[] stored = value == null ? TOMBSTONE : value;
        byte[] previous = writes.put(key, stored);
        approximateBytes += stored.length + (previous == null ? key.get().length + ENTRY_OVERHEAD : -previous.length);
    }

    /**
     * The uncommitted value of {@code key}: null when the key was not written since the
     * last commit, {@link #TOMBSTONE} when it was deleted.
     */
    byte[] get(Bytes key) {
        return writes.get(key);
    }

    boolean isEmpty() {
        return writes.isEmpty();
    }

    /** Buffered deletes. */
    int deletes() {
        int n = 0;
        for (byte[] v : writes.values()) {
            if (v == TOMBSTONE) {
                n++;
            }
        }
        return n;
    }

    int size() {
        return writes.size();
    }

    /** Key and value bytes held, plus a per-entry overhead. */
    long approximateBytes() {
        return approximateBytes;
    }

    /**
     * A copy of the writes with keys in [from, to] (a null bound is open), in ascending key
     * order, tombstones included: iterators read the copy, so a commit while they run does
     * not change what they see.
     */
    List<Map.Entry<Bytes, byte[]>> copyRange(Bytes from, Bytes to) {
        NavigableMap<Bytes, byte[]> view = writes;
        if (from != null && to != null) {
            view = writes.subMap(from, true, to, true);
        } else if (from != null) {
            view = writes.tailMap(from, true);
        } else if (to != null) {
            view = writes.headMap(to, true);
        }
        List<Map.Entry<Bytes, byte[]>> copy = new ArrayList<>(view.size());
        for (Map.Entry<Bytes, byte[]> e : view.entrySet()) {
            // TreeMap updates its entries in place: copy them.
            copy.add(Map.entry(e.getKey(), e.getValue()));
        }
        return copy;
    }

    /**
     * A copy of the writes whose keys start with {@code prefix}, in ascending key order,
     * tombstones included ({@link #copyRange}): only those entries are copied.
     */
    List<Map.Entry<Bytes, byte[]>> copyPrefix(byte[] prefix) {
        NavigableMap<Bytes, byte[]> view = writes.tailMap(Bytes.wrap(prefix), true);
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] after = java.util.Arrays.copyOf(prefix, i + 1);
                after[i]++;
                view = writes.subMap(Bytes.wrap(prefix), true, Bytes.wrap(after), false);
                break;
            }
        }
        List<Map.Entry<Bytes, byte[]>> copy = new ArrayList<>(view.size());
        for (Map.Entry<Bytes, byte[]> e : view.entrySet()) {
            copy.add(Map.entry(e.getKey(), e.getValue()));
        }
        return copy;
    }

    /** Adds every write to {@code batch} as a Strata put or delete of its record key. */
    void addTo(WriteBatch batch) {
        for (Map.Entry<Bytes, byte[]> e : writes.entrySet()) {
            byte[] key = StoreLayout.dataKey(e.getKey().get());
            if (e.getValue() == TOMBSTONE) {
                batch.delete(key);
            } else {
                batch.put(key, e.getValue());
            }
        }
    }

    void clear() {
        writes.clear();
        approximateBytes = 0;
    }
}
