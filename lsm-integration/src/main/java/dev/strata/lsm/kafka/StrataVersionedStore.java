package dev.strata.lsm.kafka;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WriteOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A Kafka Streams versioned key-value store (KIP-889) of bytes on Strata, following the
 * contract of Kafka's RocksDB versioned store: every put of a key is a version valid from its
 * timestamp until the next version's; {@code get(key)} is the latest version,
 * {@code get(key, asOf)} the version valid at {@code asOf}; a null value (or a delete) is a
 * tombstone version.
 *
 * <p>Two parts, in {@code <task>/strata/<name>/}:
 * <ul>
 *   <li>{@code latest/}: one Strata store holding each key's latest version (timestamp,
 *       tombstone flag, value), which never expires (as in Kafka).</li>
 *   <li>{@code history/<segment start>}: the older versions, one Strata store per time
 *       segment ({@link TimeSegments}), a version in the segment of its {@code validTo}. With
 *       stream time {@code t}, a version valid only before {@code t - historyRetention} is not
 *       needed by any allowed query, and the segments of such versions are dropped whole, by
 *       deleting their directories. In a segment a version's key is the key, then
 *       {@code validTo}, then {@code validFrom} ({@link SegmentLayout#sessionKey}).</li>
 * </ul>
 *
 * <p>Rules kept from Kafka's store: a put or delete older than stream time less the history
 * retention (the grace period) is not applied ({@link #PUT_RETURN_CODE_NOT_PUT}, or null for
 * a delete, and a dropped record counted); {@code get(key, asOf)} with {@code asOf} older than
 * stream time less the history retention answers only from the latest version. A put returns
 * its version's {@code validTo}, or {@link #PUT_RETURN_CODE_VALID_TO_UNDEFINED} when it is the
 * latest. The latest store keeps a tombstone for a deleted key (Kafka's keeps none); such
 * tombstones are never dropped. Offsets are kept as for the window stores
 * ({@link AbstractSegmentedStore}): a put may write the latest store and two segments, which
 * no Strata batch covers, so a commit writes the offsets into each of them and the store
 * reports the smallest. A restore replays the changelog's puts in order, each changelog batch
 * written without the WAL as one write batch per Strata store with its offsets
 * ({@link #restoreBatch}).
 */
public class StrataVersionedStore extends AbstractSegmentedStore implements VersionedKeyValueStore<Bytes, byte[]> {
    private static final byte LIVE = 1;
    private static final byte TOMBSTONE = 0;

    private final long historyRetention;
    private LsmStore latest;
    private boolean latestDirty;
    /**
     * During {@link #restoreBatch}: the batch's writes to the latest store so far, by Strata key
     * ({@link #RESTORE_DELETED}: a delete), read before the store, written at its end as one
     * unlogged batch; null otherwise.
     */
    private TreeMap<Bytes, byte[]> restoringLatest;
    /** During {@link #restoreBatch}: the batch's writes to each history segment so far, as {@link #restoringLatest}. */
    private Map<TimeSegments.Segment, TreeMap<Bytes, byte[]>> restoringHistory;
    /** A delete among a restore batch's pending writes (compared by identity). */
    private static final byte[] RESTORE_DELETED = new byte[0];

    /**
     * @param name the store name
     * @param config the configuration of the latest-value store and of each history segment
     * @param historyRetention how long, in ms of stream time, older versions stay queryable
     * @param segmentInterval the time span of one history segment, in ms
     */
    public StrataVersionedStore(String name, StoreConfig config, long historyRetention, long segmentInterval) {
        super(name, config, historyRetention, segmentInterval);
        this.historyRetention = historyRetention;
    }

    @Override
    Path segmentsDirectory(Path storeDir) {
        return storeDir.resolve("history");
    }

    @Override
    void openOthers(Path storeDir) {
        Path dir = storeDir.resolve("latest");
        try {
            Files.createDirectories(dir);
            latest = LsmStore.open(dir, openConfig);
        } catch (IOException | StoreException e) {
            throw new ProcessorStateException("cannot open the latest-value store " + dir + " of Strata store " + name,
                    e);
        }
    }

    @Override
    void addOthers(java.util.List<LsmStore> stores) {
        if (latest != null) {
            stores.add(latest);
        }
    }

    @Override
    void syncOthers() {
        if (latestDirty) {
            try {
                latest.put(SegmentLayout.SYNC_KEY, new byte[0], WriteOptions.defaults().sync(true));
            } catch (StoreException e) {
                throw failure("flush", e);
            }
            latestDirty = false;
        }
    }

    @Override
    void closeOthers() {
        if (latest != null) {
            LsmStore l = latest;
            latest = null;
            try {
                l.close();
            } catch (RuntimeException e) {
                throw failure("close", e);
            }
        }
    }

    // ---- encoding: a version's value is its flag (live or tombstone), then the value bytes;
    // ---- a latest record adds its timestamp between them.

    private static byte[] latestValue(long timestamp, byte[] value) {
        byte[] v = new byte[1 + Long.BYTES + (value == null ? 0 : value.length)];
        v[0] = value == null ? TOMBSTONE : LIVE;
        ByteBuffer.wrap(v, 1, Long.BYTES).putLong(timestamp);
        if (value != null) {
            System.arraycopy(value, 0, v, 1 + Long.BYTES, value.length);
        }
        return v;
    }

    private static byte[] historyValue(byte[] value) {
        byte[] v = new byte[1 + (value == null ? 0 : value.length)];
        v[0] = value == null ? TOMBSTONE : LIVE;
        if (value != null) {
            System.arraycopy(value, 0, v, 1, value.length);
        }
        return v;
    }

    /** A version: valid from {@code validFrom} to {@code validTo} (exclusive; MAX for the latest); null value: tombstone. */
    private static final class Version {
        final long validFrom;
        final long validTo;
        final byte[] value;

        Version(long validFrom, long validTo, byte[] value) {
            this.validFrom = validFrom;
            this.validTo = validTo;
            this.value = value;
        }
    }

    private Version latestOf(Bytes key) {
        byte[] raw;
        byte[] storedKey = StoreLayout.dataKey(key.get());
        byte[] pending = restoringLatest == null ? null : restoringLatest.get(Bytes.wrap(storedKey));
        try {
            raw = pending != null ? pending : latest.get(storedKey);
        } catch (StoreException e) {
            throw failure("get", e);
        }
        if (raw == null || raw == RESTORE_DELETED) {
            return null;
        }
        long ts = ByteBuffer.wrap(raw, 1, Long.BYTES).getLong();
        return new Version(ts, Long.MAX_VALUE,
                raw[0] == TOMBSTONE ? null : Arrays.copyOfRange(raw, 1 + Long.BYTES, raw.length));
    }

    /** The history version of {@code key} with the smallest validTo after {@code time}, or null. */
    private Version historyAfter(Bytes key, long time) {
        if (time == Long.MAX_VALUE) {
            return null;
        }
        byte[] start = SegmentLayout.keyTime(key.get(), time + 1);
        byte[] end = SegmentLayout.keyEnd(key.get());
        for (TimeSegments.Segment segment : segments.segments(time + 1, Long.MAX_VALUE, true)) {
            TreeMap<Bytes, byte[]> pending = restoringHistory == null ? null : restoringHistory.get(segment);
            try (Cursor c = segment.store.scan(start, end)) {
                Map.Entry<byte[], byte[]> first = pending == null || pending.isEmpty()
                        ? (c.next() ? Map.entry(c.key(), c.value()) : null)
                        : firstMerged(c, pending.subMap(Bytes.wrap(start), Bytes.wrap(end)));
                if (first != null) {
                    byte[] stored = first.getKey();
                    byte[] raw = first.getValue();
                    return new Version(SegmentLayout.sessionStart(stored),
                            SegmentLayout.firstTime(stored, SegmentLayout.SESSION_SUFFIX_BYTES),
                            raw[0] == TOMBSTONE ? null : Arrays.copyOfRange(raw, 1, raw.length));
                }
            } catch (StoreException e) {
                throw failure("get", e);
            }
        }
        return null;
    }

    /**
     * The first record of {@code c} (a segment's range) with a restore batch's {@code pending}
     * writes to that range over it: a pending write of a key hides the segment's record, a
     * pending delete hides it without a record of its own. Null when none is left.
     */
    private static Map.Entry<byte[], byte[]> firstMerged(Cursor c, SortedMap<Bytes, byte[]> pending) {
        Iterator<Map.Entry<Bytes, byte[]>> it = pending.entrySet().iterator();
        Map.Entry<Bytes, byte[]> p = it.hasNext() ? it.next() : null;
        boolean stored = c.next();
        while (stored || p != null) {
            int cmp = !stored ? 1 : p == null ? -1 : Arrays.compareUnsigned(c.key(), p.getKey().get());
            if (cmp < 0) {
                return Map.entry(c.key(), c.value());
            }
            if (cmp == 0) {
                stored = c.next();  // the pending write replaces the record
            }
            if (p.getValue() != RESTORE_DELETED) {
                return Map.entry(p.getKey().get(), p.getValue());
            }
            p = it.hasNext() ? it.next() : null;
        }
        return null;
    }

    private void putLatest(Bytes key, long timestamp, byte[] value) {
        positionUpdate();  // write() does it for the segments' writes
        if (restoringLatest != null) {
            restoringLatest.put(Bytes.wrap(StoreLayout.dataKey(key.get())), latestValue(timestamp, value));
            return;
        }
        try {
            beforeLoggedRecords(latest);
            latest.put(StoreLayout.dataKey(key.get()), latestValue(timestamp, value));
            latestDirty = true;
        } catch (StoreException | IllegalArgumentException e) {
            throw failure("put", e);
        }
    }

    private void putHistory(Bytes key, long validFrom, long validTo, byte[] value) {
        TimeSegments.Segment segment = segments.getOrCreateIfLive(segments.segmentId(validTo), observedStreamTime);
        if (segment != null) {  // null: valid only before the history retention: no query may see it
            byte[] storedKey = SegmentLayout.sessionKey(key.get(), validFrom, validTo);
            if (restoringHistory != null) {
                restoringHistory.computeIfAbsent(segment, s -> new TreeMap<>()).put(Bytes.wrap(storedKey),
                        historyValue(value));
            } else {
                write(segment, storedKey, historyValue(value));
            }
        }
    }

    private void deleteHistory(Bytes key, Version v) {
        TimeSegments.Segment segment = segments.forTime(v.validTo);
        if (segment != null) {
            byte[] storedKey = SegmentLayout.sessionKey(key.get(), v.validFrom, v.validTo);
            if (restoringHistory != null) {
                restoringHistory.computeIfAbsent(segment, s -> new TreeMap<>()).put(Bytes.wrap(storedKey),
                        RESTORE_DELETED);
            } else {
                delete(segment, storedKey);
            }
        }
    }

    @Override
    public synchronized long put(Bytes key, byte[] value, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        checkLimits(SegmentLayout.encodedKeyLength(key.get()) + SegmentLayout.SESSION_SUFFIX_BYTES,
                key.get().length, value == null ? 0 : 1 + Long.BYTES + value.length);
        if (expired(timestamp)) {
            recordDropped();
            positionUpdate();
            return PUT_RETURN_CODE_NOT_PUT;
        }
        return doPut(key, value, timestamp);
    }

    private boolean expired(long timestamp) {
        long minLive = observedStreamTime - historyRetention;
        if (observedStreamTime < 0 && minLive > observedStreamTime) {
            return false;  // underflow: nothing is expired
        }
        return timestamp < minLive;
    }

    private long doPut(Bytes key, byte[] value, long timestamp) {
        observedStreamTime = Math.max(observedStreamTime, timestamp);
        segments.dropExpired(observedStreamTime);
        Version current = latestOf(key);
        if (current == null || current.validFrom == timestamp) {
            putLatest(key, timestamp, value);
            return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
        }
        if (current.validFrom < timestamp) {
            putHistory(key, current.validFrom, timestamp, current.value);
            putLatest(key, timestamp, value);
            return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
        }
        Version older = historyAfter(key, timestamp);
        if (older != null && older.validFrom <= timestamp) {
            if (older.validFrom < timestamp) {
                // split the version that was valid at the timestamp
                deleteHistory(key, older);
                putHistory(key, older.validFrom, timestamp, older.value);
            }
            putHistory(key, timestamp, older.validTo, value);
            return older.validTo;
        }
        // before every version held: valid until the earliest one starts
        long validTo = older == null ? current.validFrom : older.validFrom;
        putHistory(key, timestamp, validTo, value);
        return validTo;
    }

    @Override
    public synchronized VersionedRecord<byte[]> delete(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        if (expired(timestamp)) {
            recordDropped();
            return null;
        }
        VersionedRecord<byte[]> existing = get(key, timestamp);
        doPut(key, null, timestamp);
        positionUpdate();
        return existing;
    }

    @Override
    public synchronized VersionedRecord<byte[]> get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        Version v = latestOf(key);
        return v == null || v.value == null ? null : new VersionedRecord<>(v.value, v.validFrom);
    }

    @Override
    public synchronized VersionedRecord<byte[]> get(Bytes key, long asOfTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        Version current = latestOf(key);
        if (current != null && current.validFrom <= asOfTimestamp) {
            return current.value == null ? null : new VersionedRecord<>(current.value, current.validFrom);
        }
        if (expired(asOfTimestamp)) {
            return null;  // past the history retention only the latest version answers
        }
        Version v = historyAfter(key, asOfTimestamp);
        if (v == null || v.validFrom > asOfTimestamp || v.value == null) {
            return null;
        }
        return new VersionedRecord<>(v.value, v.validFrom, v.validTo);
    }

    /**
     * The versions of {@code key} valid at some time in [fromTime, toTime] (KIP-968): those with
     * {@code validFrom <= toTime} and {@code validTo > fromTime}, tombstones left out, ordered by
     * {@code validFrom}, ascending for {@link ResultOrder#ASCENDING}, descending otherwise
     * ({@code ANY} is newest first, as in Kafka's RocksDB versioned store). As there, when
     * {@code toTime} is older than stream time less the history retention only the latest
     * version can answer. The history is searched in every segment that may hold a version
     * valid after {@code fromTime} (a version goes to the segment of its {@code validTo}), so a
     * version valid across {@code toTime} is found whatever its segment. The answer is read
     * when the query runs (one key's versions within the history retention).
     */
    synchronized List<VersionedRecord<byte[]>> versions(Bytes key, long fromTime, long toTime, ResultOrder order) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpenAndRestored();
        List<VersionedRecord<byte[]>> out = new ArrayList<>();
        if (fromTime <= toTime && !expired(toTime) && fromTime != Long.MAX_VALUE) {
            byte[] start = SegmentLayout.keyTime(key.get(), fromTime + 1);
            byte[] end = SegmentLayout.keyEnd(key.get());
            for (TimeSegments.Segment segment : segments.segments(fromTime + 1, Long.MAX_VALUE, true)) {
                try (Cursor c = segment.store.scan(start, end)) {
                    while (c.next()) {
                        byte[] stored = c.key();
                        long validFrom = SegmentLayout.sessionStart(stored);
                        long validTo = SegmentLayout.firstTime(stored, SegmentLayout.SESSION_SUFFIX_BYTES);
                        byte[] raw = c.value();
                        if (validFrom <= toTime && raw[0] != TOMBSTONE) {
                            out.add(new VersionedRecord<>(Arrays.copyOfRange(raw, 1, raw.length), validFrom, validTo));
                        }
                    }
                } catch (StoreException e) {
                    throw failure("get", e);
                }
            }
        }
        Version current = latestOf(key);
        if (fromTime <= toTime && current != null && current.value != null && current.validFrom <= toTime) {
            out.add(new VersionedRecord<>(current.value, current.validFrom));
        }
        if (order != ResultOrder.ASCENDING) {
            Collections.reverse(out);
        }
        return out;
    }

    /** A {@link VersionedRecordIterator} over a list read when the query ran. */
    private static final class ListVersionIterator implements VersionedRecordIterator<byte[]> {
        private final Iterator<VersionedRecord<byte[]>> records;
        private boolean closed;

        ListVersionIterator(List<VersionedRecord<byte[]>> records) {
            this.records = records.iterator();
        }

        @Override
        public boolean hasNext() {
            return !closed && records.hasNext();
        }

        @Override
        public VersionedRecord<byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException(closed ? "the iterator is closed" : "no more versions");
            }
            return records.next();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /**
     * Changelog records are puts: key, value (null: tombstone), the record's timestamp, replayed
     * in order. As the other stores restore (see {@link AbstractSegmentedStore}, "Restore without
     * the WAL"), a batch is one write batch per Strata store it writes (the latest store, each
     * history segment), holding its records, the batch's last offset and the position, written
     * without the WAL: a kill loses a store's records and its offset together. A put reads the
     * versions the batch's earlier puts wrote, so the batch's writes are held in memory, read
     * before the stores, until its end.
     */
    @Override
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        checkOpenAndRestored();
        restoringLatest = new TreeMap<>();
        restoringHistory = new java.util.IdentityHashMap<>();
        Map<LsmStore, WriteBatch> data = new java.util.IdentityHashMap<>();
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled(),
                        position);
                if (!expired(record.timestamp())) {
                    doPut(Bytes.wrap(record.key()), record.value(), record.timestamp());
                }
            }
            if (!restoringLatest.isEmpty()) {
                data.put(latest, toBatch(restoringLatest));
                latestDirty = true;
            }
            for (Map.Entry<TimeSegments.Segment, TreeMap<Bytes, byte[]>> e : restoringHistory.entrySet()) {
                if (e.getKey().open) {  // else dropped by a later record of the batch
                    data.put(e.getKey().store, toBatch(e.getValue()));
                    e.getKey().dirty = true;
                }
            }
        } finally {
            restoringLatest = null;
            restoringHistory = null;
        }
        restoredWithoutWal(records, data);
    }

    private static WriteBatch toBatch(TreeMap<Bytes, byte[]> writes) {
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<Bytes, byte[]> w : writes.entrySet()) {
            if (w.getValue() == RESTORE_DELETED) {
                batch.delete(w.getKey().get());
            } else {
                batch.put(w.getKey().get(), w.getValue());
            }
        }
        return batch;
    }

    @Override
    Restored fromChangelogKey(byte[] changelogKey) {
        throw new UnsupportedOperationException("a versioned store restores puts, not segment keys");
    }

    /**
     * Answers {@link VersionedKeyQuery} (the latest version, or the version as of a time) and
     * {@link MultiVersionedKeyQuery} (the versions of a key in a time range, KIP-968, see
     * {@link #versions}; an absent bound is open), as Kafka's RocksDB versioned store does;
     * other queries are
     * {@link FailureReason#UNKNOWN_QUERY_TYPE}.
     */
    @Override
    @SuppressWarnings("unchecked")
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        long startNanos = config.isCollectExecutionInfo() ? System.nanoTime() : 0;
        QueryResult<R> result;
        if (query instanceof VersionedKeyQuery) {
            if (!isPermitted(positionBound)) {
                result = QueryResult.notUpToBound(position, positionBound, partition());
            } else {
                VersionedKeyQuery<Bytes, byte[]> q = (VersionedKeyQuery<Bytes, byte[]>) query;
                VersionedRecord<byte[]> record = q.asOfTimestamp().isPresent()
                        ? get(q.key(), q.asOfTimestamp().get().toEpochMilli()) : get(q.key());
                result = (QueryResult<R>) QueryResult.forResult(record);
                result.setPosition(position.copy());
            }
        } else if (query instanceof MultiVersionedKeyQuery) {
            if (!isPermitted(positionBound)) {
                result = QueryResult.notUpToBound(position, positionBound, partition());
            } else {
                MultiVersionedKeyQuery<Bytes, byte[]> q = (MultiVersionedKeyQuery<Bytes, byte[]>) query;
                long from = q.fromTime().map(java.time.Instant::toEpochMilli).orElse(Long.MIN_VALUE);
                long to = q.toTime().map(java.time.Instant::toEpochMilli).orElse(Long.MAX_VALUE);
                result = (QueryResult<R>) QueryResult.forResult(
                        new ListVersionIterator(versions(q.key(), from, to, q.resultOrder())));
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
