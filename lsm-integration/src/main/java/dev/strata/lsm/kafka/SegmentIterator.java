package dev.strata.lsm.kafka;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
    private final Function<byte[], K> decode;
    private final boolean forward;
    private final Consumer<SegmentIterator<?>> onClose;

    private Cursor cursor;
    private Iterator<KeyValue<byte[], byte[]>> backward;
    private KeyValue<K, byte[]> next;
    private volatile boolean closed;
    private volatile boolean storeClosed;

    SegmentIterator(String storeName, List<TimeSegments.Segment> segments, byte[] start, byte[] end,
                    Function<byte[], K> decode, boolean forward, Consumer<SegmentIterator<?>> onClose) {
        this.storeName = storeName;
        this.segments = segments.iterator();
        this.start = start;
        this.end = end;
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
                if (forward && cursor != null) {
                    if (cursor.next()) {
                        return new byte[][] {cursor.key(), cursor.value()};
                    }
                    cursor.close();
                    cursor = null;
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
            try {
                Cursor c = segment.store.scan(start, end);
                if (forward) {
                    cursor = c;
                } else {
                    List<KeyValue<byte[], byte[]>> all = new ArrayList<>();
                    try (c) {
                        while (c.next()) {
                            all.add(KeyValue.pair(c.key(), c.value()));
                        }
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

    private void closeCursor() {
        if (cursor != null) {
            try {
                cursor.close();
            } catch (RuntimeException ignored) {
                // its store is closed already
            }
            cursor = null;
        }
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
