package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import dev.strata.lsm.kafka.StrataVersionedStore;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.MockStreamsMetrics;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.MockRecordCollector;
import org.apache.kafka.test.TestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IQv2 on the Strata window, session and versioned stores (the bytes stores themselves, as
 * Kafka's store-level query tests do): the queries Kafka's RocksDB stores answer, with their
 * position, {@code NOT_UP_TO_BOUND} for a bound the store has not reached, and
 * {@code UNKNOWN_QUERY_TYPE} for the others; the position survives a reopen.
 */
public class StrataSegmentedStoreQueryTest {
    private static final QueryConfig CONFIG = new QueryConfig(false);

    private InternalMockProcessorContext<?, ?> context;
    private final List<StateStore> stores = new ArrayList<>();

    @BeforeEach
    void setUp() {
        context = new InternalMockProcessorContext<>(TestUtils.tempDirectory(), Serdes.String(), Serdes.String(),
                new MockRecordCollector(),
                new ThreadCache(new LogContext("testCache"), 0, new MockStreamsMetrics(new Metrics())));
    }

    @AfterEach
    void tearDown() {
        stores.forEach(StateStore::close);
    }

    private <S extends StateStore> S init(S store) {
        store.init((StateStoreContext) context, store);
        stores.add(store);
        return store;
    }

    private void processing(long offset) {
        context.setRecordContext(new ProcessorRecordContext(0, offset, 0, "input", new RecordHeaders()));
    }

    private static Bytes b(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String s(byte[] v) {
        return new String(v, StandardCharsets.UTF_8);
    }

    private static PositionBound at(long offset) {
        return PositionBound.at(Position.fromMap(Map.of("input", Map.of(0, offset))));
    }

    @Test
    void windowStoreAnswersKeyAndTimeRangeQueries() {
        WindowStore<Bytes, byte[]> store = init(StrataStores.persistentWindowStore("w", Duration.ofMinutes(10),
                Duration.ofMinutes(1), false).get());
        processing(7);
        store.put(b("a"), "a0".getBytes(StandardCharsets.UTF_8), 0);
        processing(8);
        store.put(b("a"), "a1".getBytes(StandardCharsets.UTF_8), 60_000);
        processing(9);
        store.put(b("b"), "b1".getBytes(StandardCharsets.UTF_8), 60_000);

        WindowKeyQuery<Bytes, byte[]> keyQuery = WindowKeyQuery.withKeyAndWindowStartRange(b("a"),
                Instant.ofEpochMilli(0), Instant.ofEpochMilli(60_000));
        if (keyQuery.getTimeFrom().orElseThrow().isAfter(keyQuery.getTimeTo().orElseThrow())) {
            // kafka-streams 4.3.1's factory swaps the bounds (getTimeFrom() answers the given end), and
            // Kafka's stores, like Strata's, fetch from getTimeFrom() to getTimeTo(): build it reversed
            keyQuery = WindowKeyQuery.withKeyAndWindowStartRange(b("a"), Instant.ofEpochMilli(60_000),
                    Instant.ofEpochMilli(0));
        }
        QueryResult<WindowStoreIterator<byte[]>> keyResult = store.query(keyQuery, at(9), CONFIG);
        assertTrue(keyResult.isSuccess(), String.valueOf(keyResult));
        List<String> windows = new ArrayList<>();
        try (WindowStoreIterator<byte[]> it = keyResult.getResult()) {
            it.forEachRemaining(kv -> windows.add(kv.key + "=" + s(kv.value)));
        }
        assertEquals(List.of("0=a0", "60000=a1"), windows);
        assertEquals(Position.fromMap(Map.of("input", Map.of(0, 9L))), keyResult.getPosition());

        QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> rangeResult = store.query(
                WindowRangeQuery.withWindowStartRange(Instant.ofEpochMilli(60_000), Instant.ofEpochMilli(60_000)),
                PositionBound.unbounded(), CONFIG);
        List<String> all = new ArrayList<>();
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = rangeResult.getResult()) {
            it.forEachRemaining(kv -> all.add(s(kv.key.key().get()) + "@" + kv.key.window().start() + "-"
                    + kv.key.window().end() + "=" + s(kv.value)));
        }
        assertEquals(List.of("a@60000-120000=a1", "b@60000-120000=b1"), all);

        QueryResult<WindowStoreIterator<byte[]>> ahead = store.query(
                WindowKeyQuery.withKeyAndWindowStartRange(b("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(1)),
                at(10), CONFIG);
        assertEquals(FailureReason.NOT_UP_TO_BOUND, ahead.getFailureReason());
        assertEquals(FailureReason.UNKNOWN_QUERY_TYPE,
                store.query(KeyQuery.withKey(b("a")), PositionBound.unbounded(), CONFIG).getFailureReason());
        assertEquals(FailureReason.UNKNOWN_QUERY_TYPE,
                store.query(WindowRangeQuery.withKey(b("a")), PositionBound.unbounded(), CONFIG).getFailureReason());

        store.commit(Map.of());
        store.close();
        stores.remove(store);
        WindowStore<Bytes, byte[]> reopened = init(StrataStores.persistentWindowStore("w", Duration.ofMinutes(10),
                Duration.ofMinutes(1), false).get());
        assertEquals(Position.fromMap(Map.of("input", Map.of(0, 9L))), reopened.getPosition());
        assertTrue(reopened.query(WindowKeyQuery.withKeyAndWindowStartRange(b("b"), Instant.ofEpochMilli(0),
                Instant.ofEpochMilli(60_000)), at(9), CONFIG).isSuccess());
    }

    @Test
    void sessionStoreAnswersSessionsOfAKey() {
        SessionStore<Bytes, byte[]> store = init(StrataStores.persistentSessionStore("s", Duration.ofMinutes(10)).get());
        processing(3);
        store.put(new Windowed<>(b("a"), new SessionWindow(0, 10)), "x".getBytes(StandardCharsets.UTF_8));
        store.put(new Windowed<>(b("a"), new SessionWindow(100, 200)), "y".getBytes(StandardCharsets.UTF_8));
        store.put(new Windowed<>(b("b"), new SessionWindow(5, 6)), "z".getBytes(StandardCharsets.UTF_8));

        QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> result = store.query(WindowRangeQuery.withKey(b("a")),
                at(3), CONFIG);
        assertTrue(result.isSuccess(), String.valueOf(result));
        List<String> sessions = new ArrayList<>();
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = result.getResult()) {
            it.forEachRemaining(kv -> sessions.add(kv.key.window().start() + "-" + kv.key.window().end() + "="
                    + s(kv.value)));
        }
        assertEquals(List.of("0-10=x", "100-200=y"), sessions);
        assertEquals(FailureReason.NOT_UP_TO_BOUND,
                store.query(WindowRangeQuery.withKey(b("a")), at(4), CONFIG).getFailureReason());
        assertEquals(FailureReason.UNKNOWN_QUERY_TYPE, store.query(WindowRangeQuery.withWindowStartRange(
                Instant.ofEpochMilli(0), Instant.ofEpochMilli(1)), PositionBound.unbounded(), CONFIG).getFailureReason());
    }

    @Test
    void versionedStoreAnswersVersionedKeyQueries() {
        // the bytes store Kafka's builders wrap: the adapter over the Strata store
        VersionedKeyValueToBytesStoreAdapter adapter = (VersionedKeyValueToBytesStoreAdapter) init(
                StrataStores.persistentVersionedKeyValueStore("v", Duration.ofMinutes(1)).get());
        processing(5);
        adapter.put(b("k"), "old".getBytes(StandardCharsets.UTF_8), 1_000);
        adapter.put(b("k"), "new".getBytes(StandardCharsets.UTF_8), 2_000);

        QueryResult<VersionedRecord<byte[]>> latest = adapter.query(VersionedKeyQuery.withKey(b("k")), at(5), CONFIG);
        assertTrue(latest.isSuccess(), String.valueOf(latest));
        assertEquals("new", s(latest.getResult().value()));
        assertEquals(2_000, latest.getResult().timestamp());

        QueryResult<VersionedRecord<byte[]>> asOf = adapter.query(
                VersionedKeyQuery.<Bytes, byte[]>withKey(b("k")).asOf(Instant.ofEpochMilli(1_500)), at(5), CONFIG);
        assertEquals("old", s(asOf.getResult().value()));
        assertEquals(1_000, asOf.getResult().timestamp());
        assertEquals(Long.valueOf(2_000), asOf.getResult().validTo().orElseThrow());

        assertEquals(FailureReason.NOT_UP_TO_BOUND,
                adapter.query(VersionedKeyQuery.withKey(b("k")), at(6), CONFIG).getFailureReason());
        assertEquals(FailureReason.UNKNOWN_QUERY_TYPE,
                adapter.query(KeyQuery.withKey(b("k")), PositionBound.unbounded(), CONFIG).getFailureReason());
        assertTrue(adapter.managesOffsets(), "the adapter passes on the store's managesOffsets");
    }

    private static List<String> versions(QueryResult<VersionedRecordIterator<byte[]>> result) {
        assertTrue(result.isSuccess(), String.valueOf(result));
        List<String> out = new ArrayList<>();
        try (VersionedRecordIterator<byte[]> it = result.getResult()) {
            it.forEachRemaining(r -> out.add(s(r.value()) + "@" + r.timestamp()
                    + r.validTo().map(t -> "-" + t).orElse("")));
        }
        return out;
    }

    private static MultiVersionedKeyQuery<Bytes, byte[]> range(String key, long from, long to) {
        return MultiVersionedKeyQuery.<Bytes, byte[]>withKey(b(key)).fromTime(Instant.ofEpochMilli(from))
                .toTime(Instant.ofEpochMilli(to));
    }

    /**
     * KIP-968 as Kafka's RocksDB versioned store answers it: the versions with
     * {@code validFrom <= toTime} and {@code validTo > fromTime}, tombstones left out, newest
     * first unless ascending is asked; past the history retention only the latest version.
     */
    @Test
    void versionedStoreAnswersMultiVersionedKeyQueries() {
        VersionedKeyValueToBytesStoreAdapter adapter = (VersionedKeyValueToBytesStoreAdapter) init(
                StrataStores.persistentVersionedKeyValueStore("v", Duration.ofMinutes(1)).get());
        processing(5);
        adapter.put(b("k"), "a".getBytes(StandardCharsets.UTF_8), 1_000);
        adapter.put(b("k"), "b".getBytes(StandardCharsets.UTF_8), 2_000);
        adapter.put(b("k"), null, 3_000);
        adapter.put(b("k"), "d".getBytes(StandardCharsets.UTF_8), 4_000);

        assertEquals(List.of("d@4000", "b@2000-3000", "a@1000-2000"),
                versions(adapter.query(MultiVersionedKeyQuery.withKey(b("k")), at(5), CONFIG)), "ANY: newest first");
        assertEquals(List.of("a@1000-2000", "b@2000-3000", "d@4000"), versions(adapter.query(
                MultiVersionedKeyQuery.<Bytes, byte[]>withKey(b("k")).withAscendingTimestamps(), at(5), CONFIG)));
        assertEquals(List.of("d@4000", "b@2000-3000", "a@1000-2000"), versions(adapter.query(
                MultiVersionedKeyQuery.<Bytes, byte[]>withKey(b("k")).withDescendingTimestamps(), at(5), CONFIG)));
        assertEquals(List.of("a@1000-2000", "b@2000-3000"),
                versions(adapter.query(range("k", 1_500, 3_500).withAscendingTimestamps(), at(5), CONFIG)));
        assertEquals(List.of("b@2000-3000"), versions(adapter.query(range("k", 2_000, 2_000), at(5), CONFIG)),
                "validTo is exclusive, validFrom inclusive");
        assertEquals(List.of(), versions(adapter.query(range("k", 3_000, 3_999), at(5), CONFIG)),
                "the tombstone's interval holds no version");
        assertEquals(List.of("d@4000"), versions(adapter.query(range("k", 5_000, 6_000), at(5), CONFIG)));
        assertEquals(List.of("a@1000-2000"), versions(adapter.query(
                MultiVersionedKeyQuery.<Bytes, byte[]>withKey(b("k")).toTime(Instant.ofEpochMilli(1_999)), at(5),
                CONFIG)), "an open fromTime");
        assertEquals(List.of(), versions(adapter.query(MultiVersionedKeyQuery.withKey(b("none")), at(5), CONFIG)));
        assertEquals(FailureReason.NOT_UP_TO_BOUND,
                adapter.query(MultiVersionedKeyQuery.withKey(b("k")), at(6), CONFIG).getFailureReason());

        // Stream time 200,000: a toTime older than 140,000 only reaches the latest version.
        adapter.put(b("other"), "x".getBytes(StandardCharsets.UTF_8), 200_000);
        assertEquals(List.of("d@4000"), versions(adapter.query(range("k", 0, 5_000), at(5), CONFIG)));
        assertEquals(List.of(), versions(adapter.query(range("k", 0, 3_500), at(5), CONFIG)));
    }

    /** A version valid across toTime is found though it lives in a later segment (that of its validTo). */
    @Test
    void multiVersionedKeyQueriesFindVersionsInLaterSegments() {
        StrataVersionedStore store = init(new StrataVersionedStore("v2", StrataStores.DEFAULT_CONFIG, 600_000, 1_000));
        processing(1);
        store.put(b("k"), "p".getBytes(StandardCharsets.UTF_8), 1_000);
        store.put(b("k"), "q".getBytes(StandardCharsets.UTF_8), 50_000);   // p valid to 50,000: segment 50
        store.put(b("k"), "r".getBytes(StandardCharsets.UTF_8), 52_500);   // q valid to 52,500: segment 52
        assertEquals(List.of("p@1000-50000"), versions(store.query(range("k", 1_000, 2_000), at(1), CONFIG)));
        assertEquals(List.of("p@1000-50000", "q@50000-52500", "r@52500"),
                versions(store.query(range("k", 0, 60_000).withAscendingTimestamps(), at(1), CONFIG)));
        assertEquals(List.of("q@50000-52500"), versions(store.query(range("k", 51_000, 52_000), at(1), CONFIG)));
    }
}
