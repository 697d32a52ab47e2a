package dev.strata.lsm.kafka;

import dev.strata.lsm.Cursor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A range of a {@link StrataKeyValueStore}: the committed records from a Strata cursor merged
 * with a copy of the uncommitted writes of the range, which win on equal keys (a deleted key
 * is skipped). Both sources are fixed when the iterator is made.
 *
 * <p>Both directions stream the cursor: a reverse iterator starts at the cursor's last entry
 * ({@link Cursor#seekToLast()}) and steps back with {@link Cursor#prev()}, so it holds one
 * record of the committed part at a time whatever the size of the range. Only the
 * uncommitted writes of the range are copied (they are in memory already); a reverse
 * iterator walks that copy from its end.
 *
 * <p>Not thread safe. Close it; the store closes what is left open when it closes.
 */
final class StrataKeyValueIterator implements KeyValueIterator<Bytes, byte[]> {
    private final String storeName;
    private final Iterator<KeyValue<Bytes, byte[]>> committed;
    private final Iterator<Map.Entry<Bytes, byte[]>> uncommitted;
    private final boolean forward;
    private final Cursor cursor;
    private final Consumer<StrataKeyValueIterator> onClose;

    private KeyValue<Bytes, byte[]> committedHead;
    private Map.Entry<Bytes, byte[]> uncommittedHead;
    private KeyValue<Bytes, byte[]> next;
    private volatile boolean closed;

    /**
     * @param cursor the committed records of the range (record keys); closed by this iterator
     * @param uncommitted the uncommitted writes of the range in ascending order
     * @param forward ascending when true
     * @param onClose told once when this iterator closes
     */
    StrataKeyValueIterator(String storeName, Cursor cursor, List<Map.Entry<Bytes, byte[]>> uncommitted,
                           boolean forward, Consumer<StrataKeyValueIterator> onClose) {
        this.storeName = storeName;
        this.cursor = cursor;
        this.forward = forward;
        this.onClose = onClose;
        this.committed = new CursorIterator(cursor, forward);
        this.uncommitted = forward ? uncommitted.iterator() : descending(uncommitted);
        this.committedHead = this.committed.hasNext() ? this.committed.next() : null;
        this.uncommittedHead = this.uncommitted.hasNext() ? this.uncommitted.next() : null;
    }

    @Override
    public boolean hasNext() {
        if (closed) {
            throw new InvalidStateStoreException("iterator of store " + storeName + " is closed");
        }
        while (next == null && (committedHead != null || uncommittedHead != null)) {
            int order = compareHeads();
            if (order < 0) {
                next = committedHead;
                advanceCommitted();
            } else {
                if (order == 0) {
                    advanceCommitted();
                }
                byte[] value = uncommittedHead.getValue();
                if (value != UncommittedWrites.TOMBSTONE) {
                    next = KeyValue.pair(uncommittedHead.getKey(), value);
                }
                uncommittedHead = uncommitted.hasNext() ? uncommitted.next() : null;
            }
        }
        return next != null;
    }

    /** Negative when the committed head comes first in iteration order, 0 on equal keys. */
    private int compareHeads() {
        if (uncommittedHead == null) {
            return -1;
        }
        if (committedHead == null) {
            return 1;
        }
        int c = committedHead.key.compareTo(uncommittedHead.getKey());
        return forward ? c : -c;
    }

    private void advanceCommitted() {
        committedHead = committed.hasNext() ? committed.next() : null;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more records in the range of store " + storeName);
        }
        KeyValue<Bytes, byte[]> result = next;
        next = null;
        return result;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more records in the range of store " + storeName);
        }
        return next.key;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            cursor.close();
            onClose.accept(this);
        }
    }

    /** The elements of {@code list} from the last to the first. */
    private static <T> Iterator<T> descending(List<T> list) {
        ListIterator<T> it = list.listIterator(list.size());
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasPrevious();
            }

            @Override
            public T next() {
                return it.previous();
            }
        };
    }

    /** The records of a Strata cursor over record keys, as user keys, ascending or descending. */
    private static final class CursorIterator implements Iterator<KeyValue<Bytes, byte[]>> {
        private final Cursor cursor;
        private final boolean forward;
        private boolean started;
        private KeyValue<Bytes, byte[]> next;
        private boolean done;

        CursorIterator(Cursor cursor, boolean forward) {
            this.cursor = cursor;
            this.forward = forward;
        }

        private boolean step() {
            if (forward) {
                return cursor.next();
            }
            if (!started) {
                started = true;
                return cursor.seekToLast();
            }
            return cursor.prev();
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                if (step()) {
                    next = KeyValue.pair(Bytes.wrap(StoreLayout.userKey(cursor.key())), cursor.value());
                } else {
                    done = true;
                }
            }
            return next != null;
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            KeyValue<Bytes, byte[]> result = next;
            next = null;
            return result;
        }
    }
}
