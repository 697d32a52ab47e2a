package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StrataKeyValueStoreTest {
    private static final String CHANGELOG = "app-counts-changelog";
    private static final TopicPartition CHANGELOG_0 = new TopicPartition(CHANGELOG, 0);

    @TempDir
    Path stateDir;

    private final List<StrataKeyValueStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(StrataKeyValueStore::close);
    }

    private StrataKeyValueStore open(Path dir, TestStoreContext context) {
        StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts").get();
        store.init(context, store);
        opened.add(store);
        return store;
    }

    private StrataKeyValueStore open(boolean exactlyOnce) {
        return open(stateDir, new TestStoreContext(stateDir.toFile(), 0, exactlyOnce));
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private static List<String> keysAndValues(KeyValueIterator<Bytes, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                out.add(string(kv.key.get()) + "=" + string(kv.value));
            }
        }
        return out;
    }

    /**
     * A copy of the store's files taken while it is open: what a process kill would leave
     * (the WAL is written to the operating system before a write returns).
     */
    private Path crashImage() throws IOException {
        Path source = StrataKeyValueStore.directory(stateDir.toFile(), "counts");
        Path image = Files.createTempDirectory(stateDir.getParent(), "crash");
        Path target = StrataKeyValueStore.directory(image.toFile(), "counts");
        Files.createDirectories(target);
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> files = Files.list(source)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
                return image;
            } catch (java.nio.file.NoSuchFileException e) {
                // A background thread deleted an obsolete file (a WAL segment after a flush) meanwhile: copy again.
                if (attempt == 5) {
                    throw e;
                }
                try (Stream<Path> copied = Files.list(target)) {
                    for (Path f : (Iterable<Path>) copied::iterator) {
                        Files.delete(f);
                    }
                }
            }
        }
    }

    @Test
    void operationsSeeUncommittedAndCommittedWritesAlike() {
        StrataKeyValueStore store = open(false);
        store.put(key("b"), value("1"));
        store.put(key("d"), value("2"));
        store.commit(Map.of(CHANGELOG_0, 1L));
        store.put(key("a"), value("3"));
        store.put(key("c"), value("4"));
        store.put(key("d"), value("5"));
        assertEquals("1", string(store.delete(key("b"))));
        assertNull(store.get(key("b")));
        assertEquals("3", string(store.putIfAbsent(key("a"), value("x"))));
        assertNull(store.putIfAbsent(key("e"), value("6")));
        store.putAll(List.of(KeyValue.pair(key("f"), value("7")), KeyValue.pair(key("e"), null),
                KeyValue.pair(key("ab"), value("8"))));

        List<String> expected = List.of("a=3", "ab=8", "c=4", "d=5", "f=7");
        assertEquals(expected, keysAndValues(store.all()));
        assertEquals(List.of("f=7", "d=5", "c=4", "ab=8", "a=3"), keysAndValues(store.reverseAll()));
        assertEquals(List.of("ab=8", "c=4", "d=5"), keysAndValues(store.range(key("ab"), key("d"))));
        assertEquals(List.of("d=5", "c=4", "ab=8"), keysAndValues(store.reverseRange(key("ab"), key("d"))));
        assertEquals(List.of("a=3", "ab=8"), keysAndValues(store.prefixScan("a", new StringSerializer())));
        assertEquals(List.of(), keysAndValues(store.range(key("d"), key("a"))), "from after to is empty");
        long estimate = store.approximateNumEntries();
        assertTrue(estimate >= 5 && estimate <= 9, "committed plus uncommitted keys: " + estimate);

        store.commit(Map.of(CHANGELOG_0, 9L));
        assertEquals(expected, keysAndValues(store.all()), "the same after the commit moved them to Strata");
        assertEquals(List.of("a=3", "ab=8"), keysAndValues(store.prefixScan("a", new StringSerializer())));
        assertEquals(5, store.approximateNumEntries());
    }

    /**
     * Ranges both ways against a TreeMap model while records move from the uncommitted buffer
     * to Strata at commits, over a Strata store with a small memtable (so the committed part
     * lies in the memtable and in several tables): a reverse range streams a Strata cursor
     * backwards, merged with the uncommitted writes, which win on equal keys. Keys are often
     * prefixes of one another. Seed in every message.
     */
    @Test
    void rangesBothWaysMatchAModelAcrossCommitsAndTables() throws IOException {
        StoreConfig small = StoreConfig.builder().memtableBytes(8 << 10).backgroundThreads(1)
                .mergePolicy("no-merge").build(); // no merge joins the tables the ranges must span
        StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts", small).get();
        store.init(new TestStoreContext(stateDir.toFile(), 0, false), store);
        opened.add(store);
        long seed = dev.strata.lsm.testkit.TestSeed.orRandom();
        java.util.Random rnd = new java.util.Random(seed);
        java.util.TreeMap<Bytes, String> model = new java.util.TreeMap<>();
        for (int op = 0; op < 4_000; op++) {
            String what = "seed " + seed + " (replay with -Dstrata.test.seed=" + seed + "), op " + op;
            int r = rnd.nextInt(100);
            if (r < 55) {
                Bytes k = randomKey(rnd);
                String v = "v" + op;
                store.put(k, value(v));
                model.put(k, v);
            } else if (r < 70) {
                Bytes k = randomKey(rnd);
                store.delete(k);
                model.remove(k);
            } else if (r < 75) {
                store.commit(Map.of(CHANGELOG_0, (long) op));
            } else {
                Bytes from = rnd.nextInt(4) == 0 ? null : randomKey(rnd);
                Bytes to = rnd.nextInt(4) == 0 ? null : randomKey(rnd);
                java.util.NavigableMap<Bytes, String> view;
                if (from != null && to != null && from.compareTo(to) > 0) {
                    view = new java.util.TreeMap<>();
                } else if (from == null && to == null) {
                    view = model;
                } else if (from == null) {
                    view = model.headMap(to, true);
                } else if (to == null) {
                    view = model.tailMap(from, true);
                } else {
                    view = model.subMap(from, true, to, true);
                }
                List<String> forward = new ArrayList<>();
                view.forEach((k, v) -> forward.add(string(k.get()) + "=" + v));
                List<String> backward = new ArrayList<>(forward);
                java.util.Collections.reverse(backward);
                if (from == null && to == null) {
                    assertEquals(forward, keysAndValues(store.all()), what + ": all");
                    assertEquals(backward, keysAndValues(store.reverseAll()), what + ": reverseAll");
                } else {
                    assertEquals(forward, keysAndValues(store.range(from, to)), what + ": range");
                    assertEquals(backward, keysAndValues(store.reverseRange(from, to)), what + ": reverseRange");
                }
            }
        }
        long tables;
        try (Stream<Path> files = Files.list(StrataKeyValueStore.directory(stateDir.toFile(), "counts"))) {
            tables = files.filter(f -> f.getFileName().toString().endsWith(".sst")).count();
        }
        assertTrue(tables > 1, "the committed records span several tables: " + tables);
    }

    /** Keys of one to four letters from a small alphabet: many are prefixes of others. */
    private static Bytes randomKey(java.util.Random rnd) {
        StringBuilder sb = new StringBuilder();
        for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
            sb.append((char) ('a' + rnd.nextInt(4)));
        }
        return key(sb.toString());
    }

    @Test
    void anIteratorIsNotChangedByLaterWritesOrCommits() {
        StrataKeyValueStore store = open(false);
        store.put(key("a"), value("1"));
        store.put(key("b"), value("2"));
        KeyValueIterator<Bytes, byte[]> it = store.all();
        store.put(key("a"), value("changed"));
        store.put(key("c"), value("3"));
        store.commit(Map.of(CHANGELOG_0, 3L));
        assertEquals(List.of("a=1", "b=2"), keysAndValues(it));
    }

    @Test
    void prefixScanOfAllOnesPrefixRunsToTheEnd() {
        StrataKeyValueStore store = open(false);
        byte[] ff = {(byte) 0xFF};
        store.put(Bytes.wrap(new byte[] {(byte) 0xFF, 1}), value("x"));
        store.put(Bytes.wrap(new byte[] {(byte) 0xFE}), value("y"));
        store.commit(Map.of());
        try (KeyValueIterator<Bytes, byte[]> it = store.prefixScan(ff, (t, b) -> b)) {
            assertTrue(it.hasNext());
            assertArrayEquals(new byte[] {(byte) 0xFF, 1}, it.next().key.get());
            assertFalse(it.hasNext());
        }
    }

    @Test
    void committedOffsetsAreWrittenWithTheDataAndReadBackAfterReopen() throws IOException {
        StrataKeyValueStore store = open(true);
        assertTrue(store.managesOffsets());
        assertNull(store.committedOffset(CHANGELOG_0));
        store.put(key("k1"), value("v1"));
        store.commit(Map.of(CHANGELOG_0, 41L));
        store.put(key("k2"), value("v2"));
        assertEquals(41L, store.committedOffset(CHANGELOG_0));

        // A kill now keeps what was committed with its offset, and nothing after it.
        Path image = crashImage();
        StrataKeyValueStore crashed = open(image, new TestStoreContext(image.toFile(), 0, false));
        assertEquals(41L, crashed.committedOffset(CHANGELOG_0));
        assertEquals("v1", string(crashed.get(key("k1"))));
        assertNull(crashed.get(key("k2")), "an uncommitted write is not on disk");

        store.commit(Map.of(CHANGELOG_0, 42L));
        store.close();
        StrataKeyValueStore reopened = open(true);
        assertEquals(42L, reopened.committedOffset(CHANGELOG_0));
        assertEquals("v2", string(reopened.get(key("k2"))));
    }

    @Test
    void uncommittedWritesPastTheLimitAreWrittenWithoutMovingTheOffsets() throws IOException {
        StrataKeyValueStore store = new StrataKeyValueStore("counts", StrataStores.DEFAULT_CONFIG, 4096);
        store.init(new TestStoreContext(stateDir.toFile(), 0, false), store);
        opened.add(store);
        store.put(key("first"), value("1"));
        store.commit(Map.of(CHANGELOG_0, 10L));
        for (int i = 0; i < 100; i++) {
            store.put(key(TestKeys.padded("k", i, 3)), value("v".repeat(100)));
        }
        assertEquals(101, keysAndValues(store.all()).size());

        Path image = crashImage();
        StrataKeyValueStore crashed = open(image, new TestStoreContext(image.toFile(), 0, false));
        assertEquals(10L, crashed.committedOffset(CHANGELOG_0), "spilling does not move the offsets");
        long spilled = keysAndValues(crashed.all()).size() - 1;
        assertTrue(spilled >= 50 && spilled < 100, "records past the limit are on disk, the rest not: " + spilled);
    }

    @Test
    void anEmptyCommitClearsOffsetsAndANullOffsetClearsOne() {
        StrataKeyValueStore store = open(false);
        TopicPartition other = new TopicPartition(CHANGELOG, 1);
        store.commit(Map.of(CHANGELOG_0, 5L, other, 6L));
        Map<TopicPartition, Long> removeOne = new java.util.HashMap<>();
        removeOne.put(other, null);
        store.commit(removeOne);
        assertEquals(5L, store.committedOffset(CHANGELOG_0));
        assertNull(store.committedOffset(other));
        store.commit(Map.of());
        assertNull(store.committedOffset(CHANGELOG_0));
    }

    @Test
    void anUncleanShutdownIsTaskCorruptionUnderExactlyOnceOnly() throws IOException {
        StrataKeyValueStore store = open(true);
        store.put(key("k"), value("v"));
        store.commit(Map.of(CHANGELOG_0, 0L));
        Path image = crashImage();

        StrataKeyValueStore eos = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts").get();
        TaskCorruptedException e = assertThrows(TaskCorruptedException.class,
                () -> eos.init(new TestStoreContext(image.toFile(), 0, true), eos));
        assertTrue(e.corruptedTasks().contains(new org.apache.kafka.streams.processor.TaskId(0, 0)), e.toString());
        assertFalse(eos.isOpen());

        // At-least-once takes the store as it is (and the failed open left it reopenable).
        StrataKeyValueStore alos = open(image, new TestStoreContext(image.toFile(), 0, false));
        assertEquals("v", string(alos.get(key("k"))));
        alos.close();

        // A clean close marks the store closed: exactly-once opens it.
        store.close();
        StrataKeyValueStore again = open(true);
        assertEquals("v", string(again.get(key("k"))));
    }

    @Test
    void restoreAppliesAChangelogBatchWithItsLastOffsetInOneUnloggedWriteMadeDurableByTheNextCommit()
            throws IOException {
        TestStoreContext context = new TestStoreContext(stateDir.toFile(), 0, true);
        StrataKeyValueStore store = open(stateDir, context);
        RecordBatchingStateRestoreCallback restore =
                assertInstanceOf(RecordBatchingStateRestoreCallback.class, context.restoreCallback);
        assertEquals(store, context.registered);

        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(new ConsumerRecord<>(CHANGELOG, 0, 1000 + i, value("k" + (i % 10)), value("v" + i)));
        }
        batch.add(new ConsumerRecord<>(CHANGELOG, 0, 1100, value("k3"), null));
        restore.restoreBatch(batch);

        assertEquals(1100L, store.committedOffset(CHANGELOG_0));
        assertEquals("v99", string(store.get(key("k9"))));
        assertNull(store.get(key("k3")), "the tombstone deleted k3");
        assertEquals(9, keysAndValues(store.all()).size());

        assertTrue(store.holdsUnloggedWrites(), "a restore batch is written without the WAL");

        // A kill before any flush loses the batch's records and its offset together.
        Path lost = crashImage();
        StrataKeyValueStore beforeFlush = open(lost, new TestStoreContext(lost.toFile(), 0, false));
        assertNull(beforeFlush.committedOffset(CHANGELOG_0), "an offset must not outlive its unlogged records");
        assertNull(beforeFlush.get(key("k0")));
        beforeFlush.close();

        // An offsets-only commit after a short restore (a standby's) stays unlogged.
        store.commit(Map.of(CHANGELOG_0, 1100L));
        assertTrue(store.holdsUnloggedWrites());

        // The first commit with uncommitted writes flushes the restored records before its logged write.
        context.processing("input", 0, 1);
        store.put(key("n"), value("new"));
        store.commit(Map.of(CHANGELOG_0, 1101L));
        assertFalse(store.holdsUnloggedWrites());
        Path image = crashImage();
        StrataKeyValueStore crashed = open(image, new TestStoreContext(image.toFile(), 0, false));
        assertEquals(1101L, crashed.committedOffset(CHANGELOG_0));
        assertEquals("v90", string(crashed.get(key("k0"))));
        assertEquals("new", string(crashed.get(key("n"))));
    }

    @Test
    void keyAndRangeQueriesTrackThePosition() {
        TestStoreContext context = new TestStoreContext(stateDir.toFile(), 0, false);
        StrataKeyValueStore store = open(stateDir, context);
        context.processing("input", 0, 7);
        store.put(key("a"), value("1"));
        context.processing("input", 0, 8);
        store.put(key("b"), value("2"));

        PositionBound reached = PositionBound.at(Position.emptyPosition().withComponent("input", 0, 8));
        QueryResult<byte[]> hit = store.query(KeyQuery.withKey(key("b")), reached, new QueryConfig(true));
        assertTrue(hit.isSuccess(), hit.toString());
        assertEquals("2", string(hit.getResult()));
        assertEquals(Map.of(0, 8L), hit.getPosition().getPartitionPositions("input"));
        assertFalse(hit.getExecutionInfo().isEmpty());

        QueryResult<KeyValueIterator<Bytes, byte[]>> range = store.query(
                RangeQuery.<Bytes, byte[]>withNoBounds().withDescendingKeys(), reached, new QueryConfig(false));
        assertEquals(List.of("b=2", "a=1"), keysAndValues(range.getResult()));

        PositionBound ahead = PositionBound.at(Position.emptyPosition().withComponent("input", 0, 9));
        QueryResult<byte[]> behind = store.query(KeyQuery.withKey(key("b")), ahead, new QueryConfig(false));
        assertEquals(FailureReason.NOT_UP_TO_BOUND, behind.getFailureReason());

        PositionBound otherPartition = PositionBound.at(Position.emptyPosition().withComponent("input", 1, 100));
        assertTrue(store.query(KeyQuery.withKey(key("a")), otherPartition, new QueryConfig(false)).isSuccess());

        QueryResult<?> unknown = store.query(WindowKeyQuery.withKeyAndWindowStartRange(key("a"),
                Instant.EPOCH, Instant.now()), PositionBound.unbounded(), new QueryConfig(false));
        assertEquals(FailureReason.UNKNOWN_QUERY_TYPE, unknown.getFailureReason());

        // The position is committed with the data and comes back on reopen.
        store.commit(Map.of(CHANGELOG_0, 1L));
        store.close();
        StrataKeyValueStore reopened = open(stateDir, new TestStoreContext(stateDir.toFile(), 0, false));
        assertEquals(Map.of(0, 8L), reopened.getPosition().getPartitionPositions("input"));
    }

    @Test
    void aClosedStoreRefusesCallsAndClosesItsIterators() {
        StrataKeyValueStore store = open(false);
        store.put(key("a"), value("1"));
        KeyValueIterator<Bytes, byte[]> it = store.all();
        store.close();
        store.close();
        assertFalse(store.isOpen());
        assertThrows(InvalidStateStoreException.class, () -> store.get(key("a")));
        assertThrows(InvalidStateStoreException.class, it::hasNext);
        assertThrows(NullPointerException.class, () -> open(false).put(null, value("x")));
    }

    @Test
    void theTimestampedVariantIsATimestampedBytesStore() {
        assertInstanceOf(TimestampedBytesStore.class,
                StrataStores.persistentTimestampedKeyValueStore("t").get());
        assertFalse(StrataStores.persistentKeyValueStore("p").get() instanceof TimestampedBytesStore);
        assertEquals("strata", StrataStores.persistentKeyValueStore("p").metricsScope());
    }
}
