package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.CachingWindowStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * A Kafka Streams window store of bytes on Strata: one Strata store per time segment
 * ({@link TimeSegments}), in {@code <state.dir>/<task>/strata/<name>/<segment start>}, so that
 * an expired segment is dropped by deleting its directory. A record's Strata key is its key,
 * window start and sequence number ({@link SegmentLayout}); a window goes to the segment of
 * its start time, as in Kafka's RocksDB window store, whose contract it follows: records
 * older than stream time less the retention period are neither written (they count as
 * dropped records) nor returned; with {@code retainDuplicates} every put is a new record
 * (numbered, as Kafka numbers them) and a null value is ignored.
 *
 * <p>Writes are held in memory until the next commit and merged into every read (see
 * {@link AbstractSegmentedStore}, "Write buffer").
 *
 * <p>Iterators go segment by segment and by key, then time, inside one; backward fetches
 * read one segment's part of their range into memory at a time (Strata's cursors go forward
 * only). Offsets: see {@link AbstractSegmentedStore} (Kafka Streams checkpoints them).
 *
 * <p><b>Time-ordered.</b> Made with {@code timeOrdered}, the store is Strata's counterpart of
 * Kafka's {@code RocksDBTimeOrderedWindowStore}, which Kafka gives to windowed aggregations
 * that emit on window close: each record is also kept under a time index key
 * ({@link SegmentLayout}, value and all), and {@link #fetchAll(long, long)}, {@link #all()}
 * and their backward forms read the index, so that the windows closed since the last
 * emission are one scan per segment, in Kafka's time-ordered order (window start, then key,
 * then sequence number). Kafka Streams wraps a store other than its own time-ordered one in
 * its key-ordered {@code CachingWindowStore} when caching is on, which merges the cache with
 * the store's iterators in key order: the store then answers those calls from its key-ordered
 * records (found at {@code init}, by walking the wrappers from the root store).
 */
public class StrataWindowStore extends AbstractSegmentedStore implements WindowStore<Bytes, byte[]> {
    private final long windowSize;
    private final boolean retainDuplicates;
    private final boolean timeOrdered;
    /** Whether a Kafka {@link CachingWindowStore} wraps this store (found at init). */
    private volatile boolean cacheWrapped;
    private int seqnum;

    /**
     * @param name the store name
     * @param config the configuration of each segment's Strata store
     * @param retentionPeriod how long windows are kept, in ms, after stream time passes their start
     * @param windowSize the window size in ms (the end of a returned window is its start plus this)
     * @param retainDuplicates whether every put is kept as a new record
     * @param segmentInterval the time span of one segment, in ms
     */
    public StrataWindowStore(String name, StoreConfig config, long retentionPeriod, long windowSize,
                             boolean retainDuplicates, long segmentInterval) {
        this(name, config, retentionPeriod, windowSize, retainDuplicates, segmentInterval, false);
    }

    /**
     * As {@link #StrataWindowStore(String, StoreConfig, long, long, boolean, long)}; with
     * {@code timeOrdered} the store also keeps its records in time order (see the class comment).
     */
    public StrataWindowStore(String name, StoreConfig config, long retentionPeriod, long windowSize,
                             boolean retainDuplicates, long segmentInterval, boolean timeOrdered) {
        super(name, config, retentionPeriod, segmentInterval);
        this.timeOrdered = timeOrdered;
        if (windowSize < 0) {
            throw new IllegalArgumentException("windowSize cannot be negative, was " + windowSize);
        }
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
    }

    /** Whether the store keeps a time index (see the class comment). */
    public boolean timeOrdered() {
        return timeOrdered;
    }

    @Override
    byte[] timeIndexKey(byte[] storedKey) {
        return timeOrdered ? SegmentLayout.windowIndexKey(storedKey) : null;
    }

    @Override
    public synchronized void init(StateStoreContext stateStoreContext, StateStore root) {
        super.init(stateStoreContext, root);
        cacheWrapped = timeOrdered && wrappedByCache(root, this);
    }

    /** Whether a {@link CachingWindowStore} is among the wrappers from {@code root} down to {@code store}. */
    static boolean wrappedByCache(StateStore root, StateStore store) {
        StateStore s = root;
        while (s != store && s instanceof WrappedStateStore<?, ?, ?> wrapper) {
            if (s instanceof CachingWindowStore) {
                return true;
            }
            s = wrapper.wrapped();
        }
        return false;
    }

    /** Whether time ranges over every key are read from the time index. */
    private boolean byTime() {
        return timeOrdered && !cacheWrapped;
    }

    /** Writes are buffered until the next commit (see {@link AbstractSegmentedStore}, "Write buffer"). */
    @Override
    boolean buffersWrites() {
        return true;
    }

    @Override
    public synchronized void put(Bytes key, byte[] value, long windowStartTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        if (value == null && retainDuplicates) {
            return;  // a duplicate cannot be addressed to be deleted
        }
        checkLimits(SegmentLayout.encodedKeyLength(key.get()) + SegmentLayout.WINDOW_SUFFIX_BYTES, key.get().length,
                value);
        if (retainDuplicates) {
            seqnum = (seqnum + 1) & 0x7FFFFFFF;
        }
        TimeSegments.Segment segment = segmentForWrite(windowStartTimestamp);
        if (segment != null) {
            write(segment, SegmentLayout.windowKey(key.get(), windowStartTimestamp, seqnum), value);
        }
    }

    @Override
    public synchronized byte[] fetch(Bytes key, long time) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        if (time < earliestLiveTime(time)) {
            return null;
        }
        return get(segments.forTime(time), SegmentLayout.windowKey(key.get(), time, seqnum));
    }

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        return fetch(key, timeFrom, timeTo, true);
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        return fetch(key, timeFrom, timeTo, false);
    }

    private synchronized WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo, boolean forward) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        long from = earliestLiveTime(timeFrom);
        List<TimeSegments.Segment> searched = timeTo < from ? List.of() : segments.segments(from, timeTo, forward);
        byte[] start = SegmentLayout.keyTime(key.get(), from);
        byte[] end = timeTo == Long.MAX_VALUE ? SegmentLayout.keyEnd(key.get())
                : SegmentLayout.keyTime(key.get(), timeTo + 1);
        return register(new Times(name, searched, start, end, bufferSource, forward,
                this::unregister));
    }

    /** A single key's windows, by start time. */
    private static final class Times extends SegmentIterator<Long> implements WindowStoreIterator<byte[]> {
        Times(String storeName, List<TimeSegments.Segment> segments, byte[] start, byte[] end,
              SegmentIterator.BufferSource buffered, boolean forward,
              java.util.function.Consumer<SegmentIterator<?>> onClose) {
            super(storeName, segments, start, end, buffered,
                    stored -> SegmentLayout.firstTime(stored, SegmentLayout.WINDOW_SUFFIX_BYTES), forward, onClose);
        }
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return fetch(keyFrom, keyTo, timeFrom, timeTo, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                                    long timeTo) {
        return fetch(keyFrom, keyTo, timeFrom, timeTo, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return fetchAll(Long.MIN_VALUE, Long.MAX_VALUE, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return fetchAll(Long.MIN_VALUE, Long.MAX_VALUE, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return fetchAll(timeFrom, timeTo, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return fetchAll(timeFrom, timeTo, false);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo, boolean forward) {
        return byTime() ? fetchByTime(timeFrom, timeTo, forward) : fetch(null, null, timeFrom, timeTo, forward);
    }

    /** Every key's windows starting in [timeFrom, timeTo], from the time index: by start, then key. */
    private synchronized KeyValueIterator<Windowed<Bytes>, byte[]> fetchByTime(long timeFrom, long timeTo,
                                                                               boolean forward) {
        checkOpenAndRestored();
        long from = earliestLiveTime(timeFrom);
        List<TimeSegments.Segment> searched = timeTo < from ? List.of() : segments.segments(from, timeTo, forward);
        byte[] start = SegmentLayout.indexTime(from);
        byte[] end = timeTo == Long.MAX_VALUE ? SegmentLayout.INDEX_END : SegmentLayout.indexTime(timeTo + 1);
        return iterate(searched, start, end, stored -> {
            long windowStart = SegmentLayout.indexTime(stored);
            if (windowStart < from || windowStart > timeTo) {
                return null;
            }
            return new Windowed<>(Bytes.wrap(SegmentLayout.indexUserKey(stored, 1 + Long.BYTES, Integer.BYTES)),
                    window(windowStart));
        }, forward);
    }

    /** Windows of keys in [keyFrom, keyTo] (a null bound is open) starting in [timeFrom, timeTo]. */
    private synchronized KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                                         long timeTo, boolean forward) {
        checkOpenAndRestored();
        long from = earliestLiveTime(timeFrom);
        List<TimeSegments.Segment> searched = InvalidKeyRange.check(keyFrom, keyTo) || timeTo < from ? List.of()
                : segments.segments(from, timeTo, forward);
        byte[] start = keyFrom == null ? SegmentLayout.DATA_START : SegmentLayout.keyStart(keyFrom.get());
        byte[] end = keyTo == null ? SegmentLayout.DATA_END : SegmentLayout.keyEnd(keyTo.get());
        return iterate(searched, start, end, stored -> {
            long windowStart = SegmentLayout.firstTime(stored, SegmentLayout.WINDOW_SUFFIX_BYTES);
            if (windowStart < from || windowStart > timeTo) {
                return null;
            }
            return new Windowed<>(Bytes.wrap(SegmentLayout.userKey(stored, SegmentLayout.WINDOW_SUFFIX_BYTES)),
                    window(windowStart));
        }, forward);
    }

    private TimeWindow window(long start) {
        long end = start + windowSize;
        return new TimeWindow(start, end < start ? Long.MAX_VALUE : end);
    }

    /** Kafka's window changelog key: the key, then the window start (8 bytes) and sequence number (4 bytes). */
    @Override
    Restored fromChangelogKey(byte[] changelogKey) {
        if (changelogKey.length < SegmentLayout.WINDOW_SUFFIX_BYTES) {
            throw new org.apache.kafka.streams.errors.ProcessorStateException("store " + name
                    + ": changelog key of " + changelogKey.length + " bytes is too short for a window key");
        }
        ByteBuffer b = ByteBuffer.wrap(changelogKey);
        int keyLength = changelogKey.length - SegmentLayout.WINDOW_SUFFIX_BYTES;
        long start = b.getLong(keyLength);
        int seq = b.getInt(keyLength + Long.BYTES);
        byte[] key = java.util.Arrays.copyOf(changelogKey, keyLength);
        return new Restored(start, SegmentLayout.windowKey(key, start, seq));
    }

    /**
     * Answers {@link WindowKeyQuery} (a key's windows in a time range) and
     * {@link WindowRangeQuery} over a time range (every key's windows), as Kafka's RocksDB
     * window store does; other queries are {@link FailureReason#UNKNOWN_QUERY_TYPE}.
     */
    @Override
    @SuppressWarnings("unchecked")
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        long startNanos = config.isCollectExecutionInfo() ? System.nanoTime() : 0;
        QueryResult<R> result;
        if (query instanceof WindowKeyQuery) {
            if (!isPermitted(positionBound)) {
                result = QueryResult.notUpToBound(position, positionBound, partition());
            } else {
                WindowKeyQuery<Bytes, byte[]> q = (WindowKeyQuery<Bytes, byte[]>) query;
                if (q.getTimeFrom().isPresent() && q.getTimeTo().isPresent()) {
                    result = (QueryResult<R>) QueryResult.forResult(fetch(q.getKey(),
                            q.getTimeFrom().get().toEpochMilli(), q.getTimeTo().get().toEpochMilli()));
                    result.setPosition(position.copy());
                } else {
                    result = QueryResult.forFailure(FailureReason.UNKNOWN_QUERY_TYPE,
                            "store " + name + " answers WindowKeyQuery with a time range only: " + query);
                }
            }
        } else if (query instanceof WindowRangeQuery) {
            WindowRangeQuery<Bytes, byte[]> q = (WindowRangeQuery<Bytes, byte[]>) query;
            if (q.getKey().isPresent() || q.getTimeFrom().isEmpty() || q.getTimeTo().isEmpty()) {
                result = QueryResult.forFailure(FailureReason.UNKNOWN_QUERY_TYPE,
                        "store " + name + " answers WindowRangeQuery over a time range only: " + query);
            } else if (!isPermitted(positionBound)) {
                result = QueryResult.notUpToBound(position, positionBound, partition());
            } else {
                result = (QueryResult<R>) QueryResult.forResult(fetchAll(q.getTimeFrom().get().toEpochMilli(),
                        q.getTimeTo().get().toEpochMilli()));
                result.setPosition(position.copy());
            }
        } else {
            result = QueryResult.forUnknownQueryType(query, this);
        }
        if (config.isCollectExecutionInfo()) {
            result.addExecutionInfo("Handled in " + getClass() + " in " + (System.nanoTime() - startNanos) + "ns");
        }
        return result;
    }
}
