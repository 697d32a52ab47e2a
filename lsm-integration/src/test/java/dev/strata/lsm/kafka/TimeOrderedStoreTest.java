package dev.strata.lsm.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.SessionKeySchema;
import org.apache.kafka.streams.state.internals.WindowKeySchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The time index of the time-ordered window and session stores ({@link SegmentLayout}): over
 * random puts and deletes of many keys across two segments, {@code fetchAll} / {@code all} (both
 * directions) and {@code findSessions(earliestEnd, latestEnd)} give every live record in
 * Kafka's time-first order, from the write buffer, after a commit, after reopening, and after
 * a wiped store is restored from its changelog; the key-ordered reads give the same records;
 * a plain session store refuses the time-range search.
 */
class TimeOrderedStoreTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-changelog", 0);
    /** More than the 900 s the records span (nothing expires), segments of 500 s: two of them. */
    private static final long RETENTION = 1_000_000;

    @TempDir
    Path root;

    private final List<AbstractSegmentedStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        for (AbstractSegmentedStore s : opened) {
            if (s.isOpen()) {
                s.close();
            }
        }
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private StrataWindowStore window(Path dir, TestStoreContext[] ctx) {
        StrataWindowStore store = (StrataWindowStore) StrataStores.persistentTimeOrderedWindowStore("w",
                Duration.ofMillis(RETENTION), Duration.ofMillis(1_000), false, false, StrataStores.SEGMENT_CONFIG)
                .get();
        ctx[0] = new TestStoreContext(dir.toFile(), 0, false);
        store.init(ctx[0], store);
        opened.add(store);
        return store;
    }

    private StrataSessionStore session(Path dir, boolean timeOrdered, TestStoreContext[] ctx) {
        StrataSessionStore store = (StrataSessionStore) (timeOrdered
                ? StrataStores.persistentTimeOrderedSessionStore("s", Duration.ofMillis(RETENTION), false,
                        StrataStores.SEGMENT_CONFIG)
                : StrataStores.persistentSessionStore("s", Duration.ofMillis(RETENTION))).get();
        ctx[0] = new TestStoreContext(dir.toFile(), 0, false);
        store.init(ctx[0], store);
        opened.add(store);
        return store;
    }

    /** A window of the model: key, start. */
    private record W(String key, long start) {
    }

    private static final Comparator<W> TIME_FIRST = Comparator.comparingLong(W::start)
            .thenComparing(w -> key(w.key()));

    private static List<String> windows(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                out.add(str(kv.key.key().get()) + "@" + kv.key.window().start() + "=" + str(kv.value));
            }
        }
        return out;
    }

    private static List<String> expectedWindows(TreeMap<W, String> model, long from, long to, boolean forward) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<W, String> e : model.entrySet()) {
            if (e.getKey().start() >= from && e.getKey().start() <= to) {
                out.add(e.getKey().key() + "@" + e.getKey().start() + "=" + e.getValue());
            }
        }
        if (!forward) {
            java.util.Collections.reverse(out);
        }
        return out;
    }

    @Test
    void windowFetchAllIsTimeOrderedFromBufferCommitReopenAndRestore() {
        Random random = new Random(41);
        TestStoreContext[] ctx = new TestStoreContext[1];
        StrataWindowStore store = window(root.resolve("a"), ctx);
        assertTrue(store.timeOrdered());
        TreeMap<W, String> model = new TreeMap<>(TIME_FIRST);
        List<ConsumerRecord<byte[], byte[]>> changelog = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < 600; i++) {
            // keys of different lengths (one a prefix of another), starts over about 3 segments
            String k = "k" + random.nextInt(12) + (random.nextInt(4) == 0 ? "x" : "");
            long start = random.nextInt(900) * 1_000L;
            String v = random.nextInt(8) == 0 ? null : "v" + i;
            ctx[0].processing(CHANGELOG.topic(), 0, offset);
            store.put(key(k), v == null ? null : v.getBytes(StandardCharsets.UTF_8), start);
            changelog.add(new ConsumerRecord<>(CHANGELOG.topic(), 0, offset++,
                    WindowKeySchema.toStoreKeyBinary(key(k), start, 0).get(),
                    v == null ? null : v.getBytes(StandardCharsets.UTF_8)));
            if (v == null) {
                model.remove(new W(k, start));
            } else {
                model.put(new W(k, start), v);
            }
            if (i == 300) {
                store.commit(Map.of(CHANGELOG, offset));  // half committed, half buffered below
            }
        }
        checkWindows(store, model, "buffered");
        store.commit(Map.of(CHANGELOG, offset));
        checkWindows(store, model, "committed");
        store.close();

        store = window(root.resolve("a"), ctx);
        // stream time starts again from nothing on open; a read of the whole range sees everything
        checkWindows(store, model, "reopened");

        StrataWindowStore restored = window(root.resolve("b"), ctx);
        ((RecordBatchingStateRestoreCallback) ctx[0].restoreCallback).restoreBatch(changelog.subList(0, 250));
        ((RecordBatchingStateRestoreCallback) ctx[0].restoreCallback).restoreBatch(
                changelog.subList(250, changelog.size()));
        checkWindows(restored, model, "restored");
    }

    private static void checkWindows(StrataWindowStore store, TreeMap<W, String> model, String when) {
        assertEquals(expectedWindows(model, Long.MIN_VALUE, Long.MAX_VALUE, true), windows(store.all()), when);
        assertEquals(expectedWindows(model, Long.MIN_VALUE, Long.MAX_VALUE, false), windows(store.backwardAll()),
                when);
        assertEquals(expectedWindows(model, 250_000, 640_000, true), windows(store.fetchAll(250_000, 640_000)),
                when);
        assertEquals(expectedWindows(model, 250_000, 640_000, false),
                windows(store.backwardFetchAll(250_000, 640_000)), when);
        // the key-ordered records hold the same windows
        List<String> byKey = windows(store.fetch(null, null, Long.MIN_VALUE, Long.MAX_VALUE));
        List<String> sorted = new ArrayList<>(expectedWindows(model, Long.MIN_VALUE, Long.MAX_VALUE, true));
        assertEquals(sorted.stream().sorted().toList(), byKey.stream().sorted().toList(), when);
        assertTrue(model.size() > 300, "the model holds windows: " + model.size());
    }

    /** A session of the model: key, start, end. */
    private record S(String key, long start, long end) {
    }

    private static final Comparator<S> END_FIRST = Comparator.comparingLong(S::end).thenComparingLong(S::start)
            .thenComparing(s -> key(s.key()));

    private static List<String> sessions(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                out.add(str(kv.key.key().get()) + "@" + kv.key.window().start() + "-" + kv.key.window().end() + "="
                        + str(kv.value));
            }
        }
        return out;
    }

    private static List<String> expectedSessions(TreeMap<S, String> model, long earliestEnd, long latestEnd) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<S, String> e : model.entrySet()) {
            if (e.getKey().end() >= earliestEnd && e.getKey().end() <= latestEnd) {
                out.add(e.getKey().key() + "@" + e.getKey().start() + "-" + e.getKey().end() + "=" + e.getValue());
            }
        }
        return out;
    }

    @Test
    void sessionFindSessionsByEndTimeFromBufferCommitReopenAndRestore() {
        Random random = new Random(42);
        TestStoreContext[] ctx = new TestStoreContext[1];
        StrataSessionStore store = session(root.resolve("a"), true, ctx);
        assertTrue(store.timeOrdered());
        TreeMap<S, String> model = new TreeMap<>(END_FIRST);
        List<ConsumerRecord<byte[], byte[]>> changelog = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < 600; i++) {
            String k = "k" + random.nextInt(12) + (random.nextInt(4) == 0 ? "x" : "");
            long start = random.nextInt(900) * 1_000L;
            long end = start + random.nextInt(3) * 500L;
            boolean remove = random.nextInt(8) == 0;
            Windowed<Bytes> sessionKey = new Windowed<>(key(k), new SessionWindow(start, end));
            ctx[0].processing(CHANGELOG.topic(), 0, offset);
            byte[] value = ("a" + i).getBytes(StandardCharsets.UTF_8);
            if (remove) {
                store.remove(sessionKey);
                model.remove(new S(k, start, end));
            } else {
                store.put(sessionKey, value);
                model.put(new S(k, start, end), "a" + i);
            }
            changelog.add(new ConsumerRecord<>(CHANGELOG.topic(), 0, offset++,
                    SessionKeySchema.toBinary(sessionKey).get(), remove ? null : value));
            if (i == 300) {
                store.commit(Map.of(CHANGELOG, offset));
            }
        }
        checkSessions(store, model, "buffered");
        store.commit(Map.of(CHANGELOG, offset));
        checkSessions(store, model, "committed");
        store.close();
        store = session(root.resolve("a"), true, ctx);
        checkSessions(store, model, "reopened");

        StrataSessionStore restored = session(root.resolve("b"), true, ctx);
        ((RecordBatchingStateRestoreCallback) ctx[0].restoreCallback).restoreBatch(changelog);
        checkSessions(restored, model, "restored");
    }

    private static void checkSessions(StrataSessionStore store, TreeMap<S, String> model, String when) {
        assertEquals(expectedSessions(model, 0, Long.MAX_VALUE), sessions(store.findSessions(0, Long.MAX_VALUE)), when);
        assertEquals(expectedSessions(model, 250_000, 640_000), sessions(store.findSessions(250_000, 640_000)), when);
        List<String> byKey = sessions(store.fetch(null, null));
        assertEquals(expectedSessions(model, 0, Long.MAX_VALUE).stream().sorted().toList(),
                byKey.stream().sorted().toList(), when);
        assertTrue(model.size() > 300, "the model holds sessions: " + model.size());
    }

    @Test
    void aPlainSessionStoreRefusesTheSearchOverEveryKey() {
        TestStoreContext[] ctx = new TestStoreContext[1];
        StrataSessionStore store = session(root.resolve("plain"), false, ctx);
        assertThrows(UnsupportedOperationException.class, () -> store.findSessions(0, 10));
    }
}
