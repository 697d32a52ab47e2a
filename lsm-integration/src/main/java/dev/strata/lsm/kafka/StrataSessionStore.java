package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A Kafka Streams session store of bytes on Strata: one Strata store per time segment
 * ({@link TimeSegments}), a session in the segment of its end time, as in Kafka's RocksDB
 * session store, whose contract it follows. A record's Strata key is its key, session end and
 * session start ({@link SegmentLayout}). Sessions ending before stream time less the
 * retention period are neither written (they count as dropped records) nor returned.
 *
 * <p>{@code findSessions(key, earliestSessionEndTime, latestSessionStartTime)} returns the
 * sessions of the key ending at or after the first and starting at or before the second,
 * segment by segment, by key, end and start inside one. Backward searches read one segment's
 * part of their range into memory at a time. {@code findSessions(earliestEnd, latestEnd)}
 * over every key is not supported, as in Kafka's RocksDB session store, unless the store is
 * time-ordered. Writes are held in
 * memory until the next commit and merged into every read (see {@link AbstractSegmentedStore},
 * "Write buffer"). Offsets: see
 * {@link AbstractSegmentedStore}.
 *
 * <p><b>Time-ordered.</b> Made with {@code timeOrdered}, the store is Strata's counterpart of
 * Kafka's {@code RocksDBTimeOrderedSessionStore}, which Kafka gives to session aggregations
 * that emit on window close: each session is also kept under a time index key
 * ({@link SegmentLayout}, value and all), and {@link #findSessions(long, long)} (the sessions
 * of every key ending in a time range, what the aggregation emits) reads the index, one scan
 * per segment, in Kafka's time-ordered order: session end, then start, then key. (Kafka Streams
 * turns caching off for these aggregations.)
 */
public class StrataSessionStore extends AbstractSegmentedStore implements SessionStore<Bytes, byte[]> {
    private final boolean timeOrdered;

    /**
     * @param name the store name
     * @param config the configuration of each segment's Strata store
     * @param retentionPeriod how long sessions are kept, in ms, after stream time passes their end
     * @param segmentInterval the time span of one segment, in ms
     */
    public StrataSessionStore(String name, StoreConfig config, long retentionPeriod, long segmentInterval) {
        this(name, config, retentionPeriod, segmentInterval, false);
    }

    /**
     * As {@link #StrataSessionStore(String, StoreConfig, long, long)}; with {@code timeOrdered}
     * the store also keeps its sessions in time order (see the class comment).
     */
    public StrataSessionStore(String name, StoreConfig config, long retentionPeriod, long segmentInterval,
                              boolean timeOrdered) {
        super(name, config, retentionPeriod, segmentInterval);
        this.timeOrdered = timeOrdered;
    }

    /** Whether the store keeps a time index (see the class comment). */
    public boolean timeOrdered() {
        return timeOrdered;
    }

    @Override
    byte[] timeIndexKey(byte[] storedKey) {
        return timeOrdered ? SegmentLayout.sessionIndexKey(storedKey) : null;
    }

    /**
     * The sessions of every key ending in [earliestSessionEndTime, latestSessionEndTime], by
     * end, then start, then key, from the time index. As in Kafka's time-ordered session store,
     * every session of a live segment in the range is returned, also one ending before stream
     * time less the retention period (what the aggregation emits on window close is just past
     * it); other reads hide those.
     *
     * @throws UnsupportedOperationException when the store is not time-ordered (as Kafka's
     *         RocksDB session store)
     */
    @Override
    public synchronized KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(long earliestSessionEndTime,
                                                                               long latestSessionEndTime) {
        if (!timeOrdered) {
            throw new UnsupportedOperationException("store " + name + " is not time-ordered: findSessions over "
                    + "every key by end time needs a time-ordered Strata session store");
        }
        checkOpenAndRestored();
        // no retention filter beyond the live segments, as Kafka's time-ordered session store:
        // the aggregation emits sessions that closed at stream time less gap and grace, the
        // retention period, and so are just past it
        long from = earliestSessionEndTime;
        List<TimeSegments.Segment> searched = latestSessionEndTime < from ? List.of()
                : segments.segments(from, latestSessionEndTime, true);
        byte[] start = SegmentLayout.indexTime(from);
        byte[] end = latestSessionEndTime == Long.MAX_VALUE ? SegmentLayout.INDEX_END
                : SegmentLayout.indexTime(latestSessionEndTime + 1);
        return iterate(searched, start, end, stored -> {
            long sessionEnd = SegmentLayout.indexTime(stored);
            if (sessionEnd < from || sessionEnd > latestSessionEndTime) {
                return null;
            }
            return new Windowed<>(Bytes.wrap(SegmentLayout.indexUserKey(stored, 1 + SegmentLayout.SESSION_SUFFIX_BYTES,
                    0)), new SessionWindow(SegmentLayout.indexSessionStart(stored), sessionEnd));
        }, true);
    }

    /** Writes are buffered until the next commit (see {@link AbstractSegmentedStore}, "Write buffer"). */
    @Override
    boolean buffersWrites() {
        return true;
    }

    @Override
    public synchronized void put(Windowed<Bytes> sessionKey, byte[] aggregate) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        Objects.requireNonNull(sessionKey.key(), "key cannot be null");
        checkOpenAndRestored();
        if (aggregate == null) {
            remove(sessionKey);
            return;
        }
        byte[] key = sessionKey.key().get();
        checkLimits(SegmentLayout.encodedKeyLength(key) + SegmentLayout.SESSION_SUFFIX_BYTES, key.length, aggregate);
        TimeSegments.Segment segment = segmentForWrite(sessionKey.window().end());
        if (segment != null) {
            write(segment, SegmentLayout.sessionKey(key, sessionKey.window().start(), sessionKey.window().end()),
                    aggregate);
        }
    }

    @Override
    public synchronized void remove(Windowed<Bytes> sessionKey) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        Objects.requireNonNull(sessionKey.key(), "key cannot be null");
        checkOpenAndRestored();
        long end = sessionKey.window().end();
        observedStreamTime = Math.max(observedStreamTime, end);
        TimeSegments.Segment segment = segments.forTime(end);
        if (segment != null) {
            delete(segment, SegmentLayout.sessionKey(sessionKey.key().get(), sessionKey.window().start(), end));
        }
    }

    @Override
    public synchronized byte[] fetchSession(Bytes key, long sessionStartTime, long sessionEndTime) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        if (sessionEndTime < earliestLiveTime(sessionEndTime)) {
            return null;
        }
        return get(segments.forTime(sessionEndTime), SegmentLayout.sessionKey(key.get(), sessionStartTime,
                sessionEndTime));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes key, long earliestSessionEndTime,
                                                                  long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return find(key, key, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes key, long earliestSessionEndTime,
                                                                          long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return find(key, key, earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes keyFrom, Bytes keyTo,
                                                                  long earliestSessionEndTime,
                                                                  long latestSessionStartTime) {
        return find(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes keyFrom, Bytes keyTo,
                                                                          long earliestSessionEndTime,
                                                                          long latestSessionStartTime) {
        return find(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return find(key, key, 0, Long.MAX_VALUE, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return find(key, key, 0, Long.MAX_VALUE, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo) {
        return find(keyFrom, keyTo, 0, Long.MAX_VALUE, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo) {
        return find(keyFrom, keyTo, 0, Long.MAX_VALUE, false);
    }

    /** Sessions of keys in [keyFrom, keyTo] (null: open) ending at or after earliestEnd, starting at or before latestStart. */
    private synchronized KeyValueIterator<Windowed<Bytes>, byte[]> find(Bytes keyFrom, Bytes keyTo, long earliestEnd,
                                                                        long latestStart, boolean forward) {
        checkOpenAndRestored();
        long from = earliestLiveTime(earliestEnd);
        List<TimeSegments.Segment> searched = InvalidKeyRange.check(keyFrom, keyTo) ? List.of()
                : segments.segments(from, Long.MAX_VALUE, forward);
        byte[] start;
        if (keyFrom == null) {
            start = SegmentLayout.DATA_START;
        } else if (keyFrom.equals(keyTo)) {
            start = SegmentLayout.keyTime(keyFrom.get(), from);  // one key: its sessions sorted by end
        } else {
            start = SegmentLayout.keyStart(keyFrom.get());
        }
        byte[] end = keyTo == null ? SegmentLayout.DATA_END : SegmentLayout.keyEnd(keyTo.get());
        return iterate(searched, start, end, stored -> {
            long sessionEnd = SegmentLayout.firstTime(stored, SegmentLayout.SESSION_SUFFIX_BYTES);
            long sessionStart = SegmentLayout.sessionStart(stored);
            if (sessionEnd < from || sessionStart > latestStart) {
                return null;
            }
            return new Windowed<>(Bytes.wrap(SegmentLayout.userKey(stored, SegmentLayout.SESSION_SUFFIX_BYTES)),
                    new SessionWindow(sessionStart, sessionEnd));
        }, forward);
    }

    /** Kafka's session changelog key: the key, then the session end and start (8 bytes each). */
    @Override
    Restored fromChangelogKey(byte[] changelogKey) {
        if (changelogKey.length < SegmentLayout.SESSION_SUFFIX_BYTES) {
            throw new ProcessorStateException("store " + name + ": changelog key of " + changelogKey.length
                    + " bytes is too short for a session key");
        }
        ByteBuffer b = ByteBuffer.wrap(changelogKey);
        int keyLength = changelogKey.length - SegmentLayout.SESSION_SUFFIX_BYTES;
        long end = b.getLong(keyLength);
        long start = b.getLong(keyLength + Long.BYTES);
        return new Restored(end, SegmentLayout.sessionKey(Arrays.copyOf(changelogKey, keyLength), start, end));
    }

    /**
     * Answers {@link WindowRangeQuery} for a key (all its sessions), as Kafka's RocksDB session
     * store does; other queries are {@link FailureReason#UNKNOWN_QUERY_TYPE}.
     */
    @Override
    @SuppressWarnings("unchecked")
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        long startNanos = config.isCollectExecutionInfo() ? System.nanoTime() : 0;
        QueryResult<R> result;
        if (query instanceof WindowRangeQuery && ((WindowRangeQuery<?, ?>) query).getKey().isPresent()) {
            if (!isPermitted(positionBound)) {
                result = QueryResult.notUpToBound(position, positionBound, partition());
            } else {
                Bytes key = ((WindowRangeQuery<Bytes, byte[]>) query).getKey().get();
                result = (QueryResult<R>) QueryResult.forResult(fetch(key));
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
