package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.MockRecordCollector;
import org.apache.kafka.streams.processor.internals.MockStreamsMetrics;
import org.apache.kafka.test.TestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static java.time.Duration.ofMillis;
import static java.time.Instant.ofEpochMilli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The segment cases of Kafka's {@code AbstractRocksDBWindowStoreTest} (4.3.1 test jar), which
 * cannot take a Strata store (its store comes from a closed enum of RocksDB store types),
 * ported to the Strata window store: {@code shouldOnlyIterateOpenSegments},
 * {@code testSegmentMaintenance}, {@code testInitialLoading}, {@code shouldMatchPositionAfterPut}
 * and a restore case, with Strata's segment directories ({@code <state dir>/strata/<store>/<segment
 * start ms>}, where Kafka's are {@code <state dir>/<store>/<store>.<segment start ms>}); plus
 * reopening, and the suppliers' argument checks. Not ported: {@code testRolling} (its
 * segment assertions are those of {@code testSegmentMaintenance}; its fetch assertions are
 * in {@code AbstractWindowBytesStoreTest}, which runs against Strata).
 */
public class StrataWindowStoreSegmentsTest {
    private static final String STORE_NAME = "rocksDB window store";
    private static final long WINDOW_SIZE = 3L;
    private static final long SEGMENT_INTERVAL = 60_000L;
    private static final long RETENTION_PERIOD = 2 * SEGMENT_INTERVAL;

    private File baseDir;
    private MockRecordCollector recordCollector;
    private InternalMockProcessorContext<?, ?> context;
    private WindowStore<Integer, String> windowStore;

    private WindowStore<Integer, String> build(boolean retainDuplicates) {
        return Stores.windowStoreBuilder(
                StrataStores.persistentWindowStore(STORE_NAME, ofMillis(RETENTION_PERIOD), ofMillis(WINDOW_SIZE),
                        retainDuplicates),
                Serdes.Integer(), Serdes.String()).build();
    }

    @BeforeEach
    void setUp() {
        baseDir = TestUtils.tempDirectory();
        recordCollector = new MockRecordCollector();
        context = new InternalMockProcessorContext<>(baseDir, Serdes.String(), Serdes.Integer(), recordCollector,
                new ThreadCache(new LogContext("testCache"), 0, new MockStreamsMetrics(new Metrics())));
        context.setTime(1L);
        windowStore = build(false);
        windowStore.init((StateStoreContext) context, windowStore);
    }

    @AfterEach
    void tearDown() {
        windowStore.close();
    }

    private Path storeDir() {
        return baseDir.toPath().resolve("strata").resolve(STORE_NAME);
    }

    private Set<String> segmentDirs() {
        try (Stream<Path> entries = Files.list(storeDir())) {
            return entries.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String segment(long id) {
        return Long.toString(id * SEGMENT_INTERVAL);
    }

    private static int count(WindowStoreIterator<String> iterator) {
        try (iterator) {
            int n = 0;
            while (iterator.hasNext()) {
                iterator.next();
                n++;
            }
            return n;
        }
    }

    @Test
    void shouldOnlyIterateOpenSegments() {
        long currentTime = 0;
        windowStore.put(1, "one", currentTime);
        currentTime += SEGMENT_INTERVAL;
        windowStore.put(1, "two", currentTime);
        currentTime += SEGMENT_INTERVAL;
        windowStore.put(1, "three", currentTime);

        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0L, currentTime)) {
            // roll to the next segment, which drops the first
            currentTime += SEGMENT_INTERVAL;
            windowStore.put(1, "four", currentTime);

            assertEquals(new KeyValue<>(SEGMENT_INTERVAL, "two"), iterator.next());
            assertEquals(new KeyValue<>(2 * SEGMENT_INTERVAL, "three"), iterator.next());
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void aSegmentDroppedUnderAnOpenCursorEndsItsPartOfTheIteration() throws IOException {
        for (int i = 0; i < 5; i++) {
            windowStore.put(i, "s0-" + i, 10 + i);
            windowStore.put(i, "s1-" + i, SEGMENT_INTERVAL + 10 + i);
        }
        try (org.apache.kafka.streams.state.KeyValueIterator<org.apache.kafka.streams.kstream.Windowed<Integer>, String>
                 iterator = windowStore.all()) {
            assertEquals("s0-0", iterator.next().value);  // a cursor is open on segment 0
            windowStore.put(9, "late", 10 * SEGMENT_INTERVAL);  // drops segments 0 and 1 (and their directories)
            assertEquals(Set.of(segment(10)), segmentDirs());
            List<String> rest = new ArrayList<>();
            iterator.forEachRemaining(kv -> rest.add(kv.value));
            // what the open cursor still sees of segment 0 may come, nothing of segment 1 does
            assertEquals(true, rest.stream().allMatch(v -> v.startsWith("s0-")), String.valueOf(rest));
        }
        assertEquals(List.of("late"), values(windowStore.all()));
    }

    private static List<String> values(
            org.apache.kafka.streams.state.KeyValueIterator<org.apache.kafka.streams.kstream.Windowed<Integer>, String> it) {
        try (it) {
            List<String> out = new ArrayList<>();
            it.forEachRemaining(kv -> out.add(kv.value));
            return out;
        }
    }

    @Test
    void testSegmentMaintenance() {
        windowStore.close();
        windowStore = build(true);
        windowStore.init((StateStoreContext) context, windowStore);
        context.setTime(0L);

        windowStore.put(0, "v", 0);
        assertEquals(Set.of(segment(0)), segmentDirs());
        windowStore.put(0, "v", SEGMENT_INTERVAL - 1);
        windowStore.put(0, "v", SEGMENT_INTERVAL - 1);
        assertEquals(Set.of(segment(0)), segmentDirs());
        windowStore.put(0, "v", SEGMENT_INTERVAL);
        assertEquals(Set.of(segment(0), segment(1)), segmentDirs());

        assertEquals(4, count(windowStore.fetch(0, ofEpochMilli(0L), ofEpochMilli(SEGMENT_INTERVAL * 4))));
        assertEquals(Set.of(segment(0), segment(1)), segmentDirs());

        windowStore.put(0, "v", SEGMENT_INTERVAL * 3);
        // stream time 180,000: the earliest live time is 60,001, so the record at 60,000 is gone too
        assertEquals(1, count(windowStore.fetch(0, ofEpochMilli(0L), ofEpochMilli(SEGMENT_INTERVAL * 4))));
        assertEquals(Set.of(segment(1), segment(3)), segmentDirs());

        windowStore.put(0, "v", SEGMENT_INTERVAL * 5);
        assertEquals(1, count(windowStore.fetch(0, ofEpochMilli(SEGMENT_INTERVAL * 4),
                ofEpochMilli(SEGMENT_INTERVAL * 10))));
        assertEquals(Set.of(segment(3), segment(5)), segmentDirs());
    }

    @Test
    void testInitialLoading() throws IOException {
        windowStore.close();
        for (long id = 0; id <= 6; id++) {
            Files.createDirectories(storeDir().resolve(segment(id)));
        }
        windowStore = build(false);
        windowStore.init((StateStoreContext) context, windowStore);
        assertEquals(7, segmentDirs().size(), "every segment found is opened");

        // advance stream time: the old segments expire and are deleted
        windowStore.put(1, "v", 6L * SEGMENT_INTERVAL);
        assertEquals(Set.of(segment(4), segment(5), segment(6)), segmentDirs());
        assertEquals(0, count(windowStore.fetch(0, ofEpochMilli(0L), ofEpochMilli(1_000_000L))));
        assertEquals(Set.of(segment(4), segment(5), segment(6)), segmentDirs());
    }

    @Test
    void aDirectoryThatIsNoSegmentIsAClearError() throws IOException {
        windowStore.close();
        Files.createDirectories(storeDir().resolve("not-a-segment"));
        WindowStore<Integer, String> store = build(false);
        org.apache.kafka.streams.errors.ProcessorStateException e = assertThrows(
                org.apache.kafka.streams.errors.ProcessorStateException.class,
                () -> store.init((StateStoreContext) context, store));
        assertEquals(true, e.getMessage().contains("not-a-segment"), e.getMessage());
        Files.delete(storeDir().resolve("not-a-segment"));
        windowStore = build(false);
        windowStore.init((StateStoreContext) context, windowStore);
    }

    @Test
    void shouldMatchPositionAfterPut() {
        MeteredWindowStore<Integer, String> metered = (MeteredWindowStore<Integer, String>) windowStore;
        WrappedStateStore<?, ?, ?> logging = (WrappedStateStore<?, ?, ?>) metered.wrapped();
        org.apache.kafka.streams.processor.StateStore strata = logging.wrapped();

        for (int i = 0; i < 4; i++) {
            context.setRecordContext(new ProcessorRecordContext(0, i + 1, 0, "", new RecordHeaders()));
            windowStore.put(i, Integer.toString(i), SEGMENT_INTERVAL);
        }
        assertEquals(Position.fromMap(Map.of("", Map.of(0, 4L))), strata.getPosition());
    }

    @Test
    void recordsSurviveAReopenAndTheChangelogRestoresAWipedStore() throws IOException {
        long start = RETENTION_PERIOD + SEGMENT_INTERVAL;
        for (int i = 0; i < 9; i++) {
            windowStore.put(i, "v" + i, start + i * SEGMENT_INTERVAL / 3);
        }
        windowStore.put(0, null, start);  // a delete reaches the changelog as a tombstone
        windowStore.commit(Map.of());
        windowStore.close();

        windowStore = build(false);
        windowStore.init((StateStoreContext) context, windowStore);
        assertNull(windowStore.fetch(0, start));
        for (int i = 1; i < 9; i++) {
            assertEquals("v" + i, windowStore.fetch(i, start + i * SEGMENT_INTERVAL / 3), "reopened, key " + i);
        }
        windowStore.close();

        // wipe it, as Kafka Streams does to a corrupted task, and restore it from the changelog
        try (Stream<Path> walk = Files.walk(storeDir())) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
        List<KeyValue<byte[], byte[]>> changelog = new ArrayList<>();
        for (ProducerRecord<Object, Object> record : recordCollector.collected()) {
            changelog.add(new KeyValue<>(((Bytes) record.key()).get(), (byte[]) record.value()));
        }
        assertEquals(10, changelog.size());
        windowStore = build(false);
        windowStore.init((StateStoreContext) context, windowStore);
        assertEquals(0, count(windowStore.fetch(1, ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
        context.restore(STORE_NAME, changelog);

        // stream time is now start + 8 * 20 s: segments before it less the retention are dropped
        long lastTime = start + 8 * SEGMENT_INTERVAL / 3;
        long earliestLive = lastTime - RETENTION_PERIOD + 1;
        assertNull(windowStore.fetch(0, start));
        for (int i = 1; i < 9; i++) {
            long t = start + i * SEGMENT_INTERVAL / 3;
            assertEquals(t < earliestLive ? null : "v" + i, windowStore.fetch(i, t), "restored, key " + i);
        }
    }

    @Test
    void suppliersRefuseBadArgumentsAsKafkasDo() {
        assertThrows(NullPointerException.class,
                () -> StrataStores.persistentWindowStore(null, ofMillis(1), ofMillis(1), false));
        assertThrows(IllegalArgumentException.class,
                () -> StrataStores.persistentWindowStore("w", ofMillis(-1), ofMillis(1), false));
        assertThrows(IllegalArgumentException.class,
                () -> StrataStores.persistentWindowStore("w", ofMillis(10), ofMillis(-1), false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StrataStores.persistentTimestampedWindowStore("w", ofMillis(10), ofMillis(11), false));
        assertEquals(true, e.getMessage().contains("no smaller than its window size"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> StrataStores.persistentWindowStore("w", java.time.Duration.ofSeconds(Long.MAX_VALUE),
                        ofMillis(1), false));
        assertThrows(IllegalArgumentException.class, () -> StrataStores.persistentSessionStore("s", ofMillis(-1)));
        assertEquals(60_000L, StrataStores.persistentSessionStore("s", ofMillis(1_000)).segmentIntervalMs());
        assertEquals(500_000L, StrataStores.persistentWindowStore("w", ofMillis(1_000_000), ofMillis(10), true)
                .segmentIntervalMs());
    }
}
