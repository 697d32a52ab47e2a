package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.TestKeys;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window and session stores hold their writes in memory until the commit
 * ({@link SegmentWriteBuffer}): every read merges the buffer with the segments (newest wins,
 * deletes hide, both directions), a commit writes it, an expired segment takes its buffered
 * writes with it, and a buffer over its byte limit is written early without offsets.
 */
class SegmentWriteBufferTest {
    private static final TopicPartition CHANGELOG_0 = new TopicPartition("app-changelog", 0);
    private static final long RETENTION = 600_000;
    /** Kafka's rule: max(retention / 2, 60 s). */
    private static final long SEGMENT = 300_000;

    @TempDir
    Path root;

    private final List<StateStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        for (StateStore s : opened) {
            s.close();
        }
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private StrataWindowStore window(Path stateDir, boolean retainDuplicates) {
        StrataWindowStore store = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                Duration.ofMillis(RETENTION), Duration.ofMillis(1_000), retainDuplicates).get();
        store.init(new TestStoreContext(stateDir.toFile(), 0, false), store);
        opened.add(store);
        return store;
    }

    private StrataSessionStore session(Path stateDir) {
        StrataSessionStore store = (StrataSessionStore) StrataStores.persistentSessionStore("s",
                Duration.ofMillis(RETENTION)).get();
        store.init(new TestStoreContext(stateDir.toFile(), 0, false), store);
        opened.add(store);
        return store;
    }

    private static List<String> times(WindowStoreIterator<byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Long, byte[]> kv = it.next();
                out.add(kv.key + "=" + str(kv.value));
            }
        }
        return out;
    }

    private static List<String> windows(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                out.add(str(kv.key.key().get()) + "@" + kv.key.window().start() + "-" + kv.key.window().end()
                        + "=" + str(kv.value));
            }
        }
        return out;
    }

    private static List<String> reversed(List<String> list) {
        List<String> copy = new ArrayList<>(list);
        Collections.reverse(copy);
        return copy;
    }

    @Test
    void windowReadsMergeTheBufferWithTheSegmentsInBothDirections() {
        Path stateDir = root.resolve("state");
        StrataWindowStore store = window(stateDir, false);
        store.put(key("a"), value("old1"), 10);
        store.put(key("a"), value("old3"), 30);
        store.put(key("a"), value("old4"), SEGMENT + 40);     // another segment
        store.put(key("b"), value("b1"), 10);
        store.commit(Map.of(CHANGELOG_0, 1L));
        assertEquals(0, store.bufferedBytes(), "a commit writes the buffer");

        store.put(key("a"), value("new1"), 10);              // replaces a stored record
        store.put(key("a"), value("new2"), 20);              // a new record between stored ones
        store.put(key("a"), null, 30);                       // deletes a stored record
        store.put(key("a"), value("new5"), SEGMENT + 50);    // new, in the second segment
        store.put(key("c"), value("c1"), 10);                // a new key
        assertTrue(store.bufferedBytes() > 0, "the writes are buffered until the commit");

        List<String> expected = List.of("10=new1", "20=new2", (SEGMENT + 40) + "=old4", (SEGMENT + 50) + "=new5");
        assertEquals(expected, times(store.fetch(key("a"), 0, 2 * SEGMENT)));
        assertEquals(reversed(expected), times(store.backwardFetch(key("a"), 0, 2 * SEGMENT)));
        assertArrayEquals(value("new1"), store.fetch(key("a"), 10));
        assertNull(store.fetch(key("a"), 30), "a buffered delete hides the stored record");
        assertArrayEquals(value("old4"), store.fetch(key("a"), SEGMENT + 40));

        List<String> all = List.of("a@10-1010=new1", "a@20-1020=new2", "b@10-1010=b1", "c@10-1010=c1",
                "a@" + (SEGMENT + 40) + "-" + (SEGMENT + 1040) + "=old4",
                "a@" + (SEGMENT + 50) + "-" + (SEGMENT + 1050) + "=new5");
        assertEquals(all, windows(store.all()));
        assertEquals(reversed(all), windows(store.backwardAll()));
        assertEquals(List.of("a@10-1010=new1", "a@20-1020=new2", "b@10-1010=b1"),
                windows(store.fetch(key("a"), key("b"), 0, SEGMENT - 1)));
        assertEquals(List.of("b@10-1010=b1", "a@20-1020=new2", "a@10-1010=new1"),
                windows(store.backwardFetch(key("a"), key("b"), 0, SEGMENT - 1)));
        assertEquals(List.of("a@10-1010=new1", "b@10-1010=b1", "c@10-1010=c1"), windows(store.fetchAll(10, 10)));

        store.commit(Map.of(CHANGELOG_0, 2L));
        assertEquals(expected, times(store.fetch(key("a"), 0, 2 * SEGMENT)), "the same after the commit");
        assertEquals(all, windows(store.all()));
        store.close();
        StrataWindowStore reopened = window(stateDir, false);
        assertEquals(2L, reopened.committedOffset(CHANGELOG_0));
        assertEquals(expected, times(reopened.fetch(key("a"), 0, 2 * SEGMENT)), "and after reopening");
        assertEquals(reversed(all), windows(reopened.backwardAll()));
    }

    @Test
    void anIteratorSeesWhatIsWrittenBeforeItReachesASegmentAndLosesNothingToACommit() {
        StrataWindowStore store = window(root.resolve("state"), false);
        store.put(key("a"), value("1"), 10);
        store.put(key("a"), value("2"), 20);
        WindowStoreIterator<byte[]> forward = store.fetch(key("a"), 0, 100);
        KeyValueIterator<Windowed<Bytes>, byte[]> backward = store.backwardAll();
        store.put(key("a"), value("3"), 30);                 // before the iterators reach the segment: seen
        store.commit(Map.of(CHANGELOG_0, 1L));               // moves the buffer into the segment
        store.put(key("a"), null, 20);                       // buffered delete, also before: seen
        assertEquals(List.of("10=1", "30=3"), times(forward));
        assertEquals(List.of("a@30-1030=3", "a@10-1010=1"), windows(backward));

        // Once a segment is reached, the iterator answers from what it copied and opened then.
        WindowStoreIterator<byte[]> reading = store.fetch(key("a"), 0, 100);
        assertEquals(10L, reading.next().key);
        store.put(key("a"), value("4"), 40);
        store.commit(Map.of(CHANGELOG_0, 2L));               // the delete of 20 reaches the segment now
        List<String> rest = times(reading);
        assertEquals(List.of("30=3"), rest, "the commit neither lost 30 nor brought back 20");
        assertEquals(List.of("10=1", "30=3", "40=4"), times(store.fetch(key("a"), 0, 100)));
    }

    @Test
    void duplicatesOfARetainDuplicatesStoreAreAllReturnedFromBufferAndSegments() {
        StrataWindowStore store = window(root.resolve("state"), true);
        store.put(key("a"), value("1"), 10);
        store.put(key("a"), value("2"), 10);
        store.commit(Map.of(CHANGELOG_0, 1L));
        store.put(key("a"), value("3"), 10);
        store.put(key("a"), value("4"), 10);
        store.put(key("a"), null, 10);                       // ignored, as in Kafka
        store.put(key("a"), value("5"), 5);
        List<String> expected = List.of("5=5", "10=1", "10=2", "10=3", "10=4");
        assertEquals(expected, times(store.fetch(key("a"), 0, 100)));
        assertEquals(reversed(expected), times(store.backwardFetch(key("a"), 0, 100)));
        assertEquals(List.of("a@5-1005=5", "a@10-1010=1", "a@10-1010=2", "a@10-1010=3", "a@10-1010=4"),
                windows(store.fetchAll(0, 100)));
        store.commit(Map.of(CHANGELOG_0, 2L));
        assertEquals(expected, times(store.fetch(key("a"), 0, 100)));
    }

    @Test
    void sessionReadsMergeBufferedPutsAndRemoves() {
        Path stateDir = root.resolve("state");
        StrataSessionStore store = session(stateDir);
        Windowed<Bytes> a0to10 = new Windowed<>(key("a"), new SessionWindow(0, 10));
        Windowed<Bytes> a50to60 = new Windowed<>(key("a"), new SessionWindow(50, 60));
        Windowed<Bytes> b0to5 = new Windowed<>(key("b"), new SessionWindow(0, 5));
        store.put(a0to10, value("x"));
        store.put(a50to60, value("y"));
        store.put(b0to5, value("b"));
        store.commit(Map.of(CHANGELOG_0, 1L));

        // A merge, as the session aggregation does it: remove the old sessions, put the merged one.
        store.remove(a0to10);
        store.remove(a50to60);
        store.put(new Windowed<>(key("a"), new SessionWindow(0, 60)), value("xy"));
        store.put(new Windowed<>(key("a"), new SessionWindow(100, 110)), value("z"));
        store.put(b0to5, value("b2"));
        assertTrue(store.bufferedBytes() > 0);

        List<String> a = List.of("a@0-60=xy", "a@100-110=z");
        assertEquals(a, windows(store.findSessions(key("a"), 0, Long.MAX_VALUE)));
        assertEquals(reversed(a), windows(store.backwardFindSessions(key("a"), 0, Long.MAX_VALUE)));
        assertEquals(List.of("a@0-60=xy"), windows(store.findSessions(key("a"), 5, 50)));
        assertEquals(a, windows(store.fetch(key("a"))));
        assertEquals(reversed(a), windows(store.backwardFetch(key("a"))));
        List<String> both = List.of("a@0-60=xy", "a@100-110=z", "b@0-5=b2");
        assertEquals(both, windows(store.fetch(key("a"), key("b"))));
        assertEquals(reversed(both), windows(store.backwardFetch(key("a"), key("b"))));
        assertNull(store.fetchSession(key("a"), 0, 10), "removed in the buffer");
        assertArrayEquals(value("xy"), store.fetchSession(key("a"), 0, 60));
        assertArrayEquals(value("b2"), store.fetchSession(key("b"), 0, 5));

        store.commit(Map.of(CHANGELOG_0, 2L));
        store.close();
        StrataSessionStore reopened = session(stateDir);
        assertEquals(both, windows(reopened.fetch(key("a"), key("b"))), "what the commit wrote");
    }

    @Test
    void theBufferedWritesOfAnExpiredSegmentGoWithIt() {
        Path stateDir = root.resolve("state");
        StrataWindowStore store = window(stateDir, false);
        store.put(key("a"), value("old"), 10);
        long before = store.bufferedBytes();
        assertTrue(before > 0);
        store.put(key("b"), value("new"), 10 * SEGMENT);     // segment 0 expires
        assertEquals(before, store.bufferedBytes(), "segment 0's buffered write is forgotten");
        assertNull(store.fetch(key("a"), 10));
        assertEquals(List.of("b@" + 10 * SEGMENT + "-" + (10 * SEGMENT + 1000) + "=new"), windows(store.all()));
        store.commit(Map.of(CHANGELOG_0, 1L));
        assertEquals(0, store.bufferedBytes());
        store.close();
        StrataWindowStore reopened = window(stateDir, false);
        assertEquals(List.of("b@" + 10 * SEGMENT + "-" + (10 * SEGMENT + 1000) + "=new"), windows(reopened.all()));
        assertEquals(1L, reopened.committedOffset(CHANGELOG_0));
    }

    @Test
    void anIteratorOverASegmentThatExpiresWhileBufferedEndsThatSegment() {
        StrataWindowStore store = window(root.resolve("state"), false);
        store.put(key("a"), value("1"), 10);
        store.put(key("a"), value("2"), 3 * SEGMENT);
        KeyValueIterator<Windowed<Bytes>, byte[]> it = store.all();
        store.put(key("z"), value("3"), 3 * SEGMENT + RETENTION);   // drops segments 0 to 2
        assertEquals(List.of("a@" + 3 * SEGMENT + "-" + (3 * SEGMENT + 1000) + "=2"), windows(it),
                "segment 0 was dropped with its buffered write; segment 3 is still there");
    }

    @Test
    void aBufferOverItsLimitIsWrittenEarlyWithoutOffsets() throws java.io.IOException {
        Path stateDir = root.resolve("state");
        StrataSessionStore store = session(stateDir);
        store.maxBufferedBytes(1_000);
        store.put(new Windowed<>(key("a"), new SessionWindow(0, 0)), value("first"));
        store.commit(Map.of(CHANGELOG_0, 1L));
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            String k = TestKeys.padded("k", i, 3);
            store.put(new Windowed<>(key(k), new SessionWindow(i, i)), value("v" + i));
            expected.add(k + "@" + i + "-" + i + "=v" + i);
            assertTrue(store.bufferedBytes() <= 1_000, "the buffer stays under its limit");
        }
        assertEquals(expected, windows(store.fetch(key("k001"), key("k100"))));
        assertEquals(1L, store.committedOffset(CHANGELOG_0), "the offsets stay those of the last commit");
        // What was written early is in the segments: a copy of the files (a kill image) holds it.
        Path killed = root.resolve("killed");
        try (java.util.stream.Stream<Path> walk = java.nio.file.Files.walk(stateDir)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path t = killed.resolve(stateDir.relativize(p).toString());
                if (java.nio.file.Files.isDirectory(p)) {
                    java.nio.file.Files.createDirectories(t);
                } else {
                    java.nio.file.Files.copy(p, t);
                }
            }
        }
        StrataSessionStore image = session(killed);
        assertEquals(1L, image.committedOffset(CHANGELOG_0), "never ahead of the data");
        assertArrayEquals(value("v1"), image.fetchSession(key("k001"), 1, 1), "written early");
        assertArrayEquals(value("first"), image.fetchSession(key("a"), 0, 0));
        store.flush();
        assertEquals(0, store.bufferedBytes(), "flush writes the buffer");
    }
}
