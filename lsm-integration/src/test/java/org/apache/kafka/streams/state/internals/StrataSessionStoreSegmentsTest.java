package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.MockStreamsMetrics;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.MockRecordCollector;
import org.apache.kafka.test.TestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Strata session store's segments: a session goes to the segment of its end time, the
 * segments expired as stream time (the latest session end) advances are deleted, a session
 * whose end is already expired is not written, and a reopened store holds what was written.
 */
public class StrataSessionStoreSegmentsTest {
    private static final long RETENTION = 120_000L;   // segments of max(60 s, 60 s) = 60 s
    private static final long INTERVAL = 60_000L;

    private File baseDir;
    private InternalMockProcessorContext<?, ?> context;
    private SessionStore<String, Long> store;

    private SessionStore<String, Long> open() {
        SessionStore<String, Long> s = Stores.sessionStoreBuilder(
                StrataStores.persistentSessionStore("sessions", Duration.ofMillis(RETENTION)),
                Serdes.String(), Serdes.Long()).withLoggingDisabled().build();
        s.init((StateStoreContext) context, s);
        return s;
    }

    @BeforeEach
    void setUp() {
        baseDir = TestUtils.tempDirectory();
        context = new InternalMockProcessorContext<>(baseDir, Serdes.String(), Serdes.Long(), new MockRecordCollector(),
                new ThreadCache(new LogContext("testCache"), 0, new MockStreamsMetrics(new Metrics())));
        store = open();
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private Set<Long> segmentStarts() throws IOException {
        try (Stream<Path> s = Files.list(baseDir.toPath().resolve("strata").resolve("sessions"))) {
            return s.filter(Files::isDirectory).map(p -> Long.parseLong(p.getFileName().toString()))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private List<KeyValue<Windowed<String>, Long>> sessions(String key) {
        try (KeyValueIterator<Windowed<String>, Long> it = store.fetch(key)) {
            return Utils.toList(it);
        }
    }

    private static KeyValue<Windowed<String>, Long> session(String key, long start, long end, long value) {
        return KeyValue.pair(new Windowed<>(key, new SessionWindow(start, end)), value);
    }

    @Test
    void sessionsGoToTheSegmentOfTheirEndAndExpiredSegmentsAreDeleted() throws IOException {
        store.put(new Windowed<>("a", new SessionWindow(10_000, 70_000)), 1L);   // ends in segment 1
        assertEquals(Set.of(INTERVAL), segmentStarts());
        store.put(new Windowed<>("a", new SessionWindow(130_000, 170_000)), 2L); // segment 2
        store.put(new Windowed<>("b", new SessionWindow(100, 200)), 3L);         // segment 0: live at 170 s
        assertEquals(Set.of(0L, INTERVAL, 2 * INTERVAL), segmentStarts());

        store.put(new Windowed<>("b", new SessionWindow(300_000, 310_000)), 4L); // stream time 310 s: segments before id(190 s) = 3 go
        assertEquals(Set.of(5 * INTERVAL), segmentStarts());
        assertEquals(List.of(), sessions("a"));
        assertEquals(List.of(session("b", 300_000, 310_000, 4)), sessions("b"));

        store.put(new Windowed<>("c", new SessionWindow(0, 100_000)), 5L);       // ends before 190 s: dropped
        assertEquals(List.of(), sessions("c"));
        assertEquals(Set.of(5 * INTERVAL), segmentStarts());
        Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> metrics =
                context.metrics().metrics();
        double dropped = metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals("dropped-records-total"))
                .mapToDouble(e -> (Double) e.getValue().metricValue()).sum();
        assertEquals(1.0, dropped, "the expired session counts as a dropped record");
    }

    @Test
    void aReopenedStoreHoldsItsSessions() {
        store.put(new Windowed<>("a", new SessionWindow(0, 5_000)), 1L);
        store.put(new Windowed<>("a", new SessionWindow(70_000, 80_000)), 2L);
        store.put(new Windowed<>("a", new SessionWindow(70_000, 80_000)), null);  // removes it
        store.put(new Windowed<>("b", new SessionWindow(90_000, 95_000)), 3L);
        store.close();
        store = open();
        assertEquals(List.of(session("a", 0, 5_000, 1)), sessions("a"));
        assertEquals(List.of(session("b", 90_000, 95_000, 3)), sessions("b"));
        try (KeyValueIterator<Windowed<String>, Long> it = store.backwardFetch("a", "b")) {
            assertEquals(List.of(session("b", 90_000, 95_000, 3), session("a", 0, 5_000, 1)), Utils.toList(it));
        }
    }
}
