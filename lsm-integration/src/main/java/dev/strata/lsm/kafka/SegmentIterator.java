package dev.strata.lsm.kafka;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;

import org.apache.kafka.common.utils.Bytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The records of a range of Strata keys in a list of time segments, segment after segment
 * (the segments and, inside each, the keys in the iteration's direction), as Kafka's
 * segmented stores iterate. Each record key is turned into the iterator's key by
 * {@code decode}, which returns null for a record outside the query (it is skipped).
 *
 * <p>Forward iteration streams a Strata cursor per segment, opened when the iteration reaches
 * the segment. Strata's public cursors go forward only, so a backward iteration reads the
 * range of each segment into memory when it reaches it and walks it backwards: it holds at
 * most one segment's part of the range at a time.
 *
 * <p>The store's buffered writes ({@link SegmentWriteBuffer}) are merged with each segment's
 * records: a buffered value replaces the stored one of the same key, a buffered delete hides
 * it. When the iteration reaches a segment it copies the segment's buffered writes of its
 * range (under the store's monitor) and then opens the segment's cursor, so, as in Kafka's
 * segmented stores, it sees what was written to a segment before it reached it; and a
 * commit between the two loses nothing (what the commit moved from the buffer is in the
 * copy, and the copy wins over the cursor with the same value).
 *
 * <p>A segment dropped (expired) or a store closed while the iterator runs ends that
 * segment's (or the whole) iteration: {@link #hasNext()} answers false, as Kafka's
 * segmented iterators do. Calling it after {@link #close()} throws
 * {@link InvalidStateStoreException}. Not thread safe.
 */
class SegmentIterator<K> implements KeyValueIterator<K, byte[]> {
    private final String storeName;
    private final Iterator<TimeSegments.Segment> segments;
    private final byte[] start;
    private final byte[] end;
    private final BufferSource buffered;
    private final Function<byte[], K> decode;
    private final boolean forward;
    private final Consumer<SegmentIterator<?>> onClose;

    private Cursor cursor;
    /** The cursor's current record, read ahead to compare with the buffered one; null: none read. */
    private byte[] cursorKey;
    private byte[] cursorValue;
    /** The current segment's buffered writes (forward) and the next of them; null: none. */
    private List<Map.Entry<Bytes, byte[]>> pending;
    private int pendingIndex;
    private Iterator<KeyValue<byte[], byte[]>> backward;
    private KeyValue<K, byte[]> next;
    private volatile boolean closed;
    private volatile boolean storeClosed;

    /** Where an iterator copies a segment's buffered writes from. */
    interface BufferSource {
        /**
         * A copy of {@code segment}'s buffered writes in [start, end), ascending, deletes as
         * {@link UncommittedWrites#TOMBSTONE}; safe to call from any thread.
         */
        List<Map.Entry<Bytes, byte[]>> copy(TimeSegments.Segment segment, byte[] start, byte[] end);
    }

    /**
     * @param buffered where the segments' buffered writes are copied from when the iteration
     *                 reaches each segment
     */
    SegmentIterator(String storeName, List<TimeSegments.Segment> segments, byte[] start, byte[] end,
                    BufferSource buffered,
                    Function<byte[], K> decode, boolean forward, Consumer<SegmentIterator<?>> onClose) {
        this.storeName = storeName;
        this.segments = segments.iterator();
        this.start = start;
        this.end = end;
        this.buffered = buffered;
        this.decode = decode;
        this.forward = forward;
        this.onClose = onClose;
    }

    @Override
    public boolean hasNext() {
        if (closed) {
            throw new InvalidStateStoreException("iterator of store " + storeName + " is closed");
        }
        while (next == null && !storeClosed) {
            byte[][] record = nextRecord();
            if (record == null) {
                return false;
            }
            K key = decode.apply(record[0]);
            if (key != null) {
                next = KeyValue.pair(key, record[1]);
            }
        }
        return next != null;
    }

    /** The next raw record of the current or a later segment; null when there is none. */
    private byte[][] nextRecord() {
        while (true) {
            try {
                if (forward && (cursor != null || pending != null)) {
                    byte[][] record = nextMerged();
                    if (record != null) {
                        if (record[1] == UncommittedWrites.TOMBSTONE) {
                            continue;  // a buffered delete hides the stored record
                        }
                        return record;
                    }
                } else if (!forward && backward != null) {
                    if (backward.hasNext()) {
                        KeyValue<byte[], byte[]> kv = backward.next();
                        return new byte[][] {kv.key, kv.value};
                    }
                    backward = null;
                }
            } catch (StoreClosedException e) {
                // the segment expired and was dropped, or the store closed: its records are gone
                closeCursor();
            } catch (StoreException e) {
                throw new ProcessorStateException("Strata store " + storeName + ": iteration failed", e);
            }
            if (!segments.hasNext()) {
                return null;
            }
            TimeSegments.Segment segment = segments.next();
            if (!segment.open) {
                continue;
            }
            List<Map.Entry<Bytes, byte[]>> segmentBuffered = buffered.copy(segment, start, end);
            if (segmentBuffered.isEmpty()) {
                segmentBuffered = null;
            }
            try {
                Cursor c = segment.store.scan(start, end);
                if (forward) {
                    cursor = c;
                    pending = segmentBuffered;
                    pendingIndex = 0;
                } else {
                    List<KeyValue<byte[], byte[]>> all = new ArrayList<>();
                    try (c) {
                        while (c.next()) {
                            all.add(KeyValue.pair(c.key(), c.value()));
                        }
                    }
                    if (segmentBuffered != null) {
                        all = merge(all, segmentBuffered);
                    }
                    java.util.Collections.reverse(all);
                    backward = all.iterator();
                }
            } catch (StoreClosedException e) {
                // dropped meanwhile: skip it
            } catch (StoreException e) {
                throw new ProcessorStateException("Strata store " + storeName + ": iteration failed", e);
            }
        }
    }

    /**
     * The next record of the current segment in forward order, the cursor's and the buffered
     * ones merged by key (the buffered one wins; it may be a TOMBSTONE); null, with the
     * cursor closed, when both are exhausted.
     */
    private byte[][] nextMerged() {
        if (cursor != null && cursorKey == null) {
            if (cursor.next()) {
                cursorKey = cursor.key();
                cursorValue = cursor.value();
            } else {
                cursor.close();
                cursor = null;
            }
        }
        Map.Entry<Bytes, byte[]> buffered = pending != null && pendingIndex < pending.size()
                ? pending.get(pendingIndex) : null;
        if (cursorKey == null && buffered == null) {
            pending = null;
            if (cursor != null) {
                cursor.close();
                cursor = null;
            }
            return null;
        }
        int order = cursorKey == null ? 1 : buffered == null ? -1 : Arrays.compareUnsigned(cursorKey,
                buffered.getKey().get());
        if (order < 0) {
            byte[][] record = {cursorKey, cursorValue};
            cursorKey = null;
            cursorValue = null;
            return record;
        }
        pendingIndex++;
        if (order == 0) {
            cursorKey = null;  // replaced by the buffered write
            cursorValue = null;
        }
        return new byte[][] {buffered.getKey().get(), buffered.getValue()};
    }

    /** Stored records and buffered writes, both ascending, merged (the buffered one wins, deletes drop). */
    static List<KeyValue<byte[], byte[]>> merge(List<KeyValue<byte[], byte[]>> stored,
                                                List<Map.Entry<Bytes, byte[]>> buffered) {
        List<KeyValue<byte[], byte[]>> out = new ArrayList<>(stored.size() + buffered.size());
        int i = 0;
        int j = 0;
        while (i < stored.size() || j < buffered.size()) {
            int order = i == stored.size() ? 1 : j == buffered.size() ? -1
                    : Arrays.compareUnsigned(stored.get(i).key, buffered.get(j).getKey().get());
            if (order < 0) {
                out.add(stored.get(i++));
                continue;
            }
            if (order == 0) {
                i++;
            }
            Map.Entry<Bytes, byte[]> b = buffered.get(j++);
            if (b.getValue() != UncommittedWrites.TOMBSTONE) {
                out.add(KeyValue.pair(b.getKey().get(), b.getValue()));
            }
        }
        return out;
    }

    private void closeCursor() {
        if (cursor != null) {
            try {
                cursor.close();
            } catch (RuntimeException ignored) {
                // its store is closed already
            }
            cursor = null;
        }
        cursorKey = null;
        cursorValue = null;
        pending = null;
        backward = null;
    }

    @Override
    public KeyValue<K, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more records in the range of store " + storeName);
        }
        KeyValue<K, byte[]> result = next;
        next = null;
        return result;
    }

    @Override
    public K peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more records in the range of store " + storeName);
        }
        return next.key;
    }

    /** The store closed: release the cursor; {@link #hasNext()} answers false from now on. */
    void storeClosed() {
        storeClosed = true;
        next = null;
        closeCursor();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            closeCursor();
            onClose.accept(this);
        }
    }
}
