package dev.strata.lsm.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.WindowKeySchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window, session and versioned stores keep their changelog offsets in every Strata
 * store they write (the segments, the latest-value store, the metadata store) and report the
 * smallest: after a crash the offsets they report never run ahead of their data.
 *
 * <p>A kill leaves every WAL write (the WAL is written to the operating system before a write
 * returns), so a copy of the open store's files is a kill image, as in
 * {@code StrataKeyValueStoreTest}. A machine crash can lose the unforced tail of each WAL
 * independently: a copy of one segment taken at one commit combined with the rest taken at
 * a later commit is such a crash image, and the store opened on it must report the earlier
 * commit's offset (a store that trusted its metadata store alone would report the later one
 * and lose the segment's lost writes for good).
 */
class SegmentedStoreOffsetsTest {
    private static final TopicPartition CHANGELOG_0 = new TopicPartition("app-w-changelog", 0);
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

    private StrataWindowStore window(Path stateDir, TestStoreContext context) {
        StrataWindowStore store = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                Duration.ofMillis(RETENTION), Duration.ofMillis(1_000), false).get();
        store.init(context, store);
        opened.add(store);
        return store;
    }

    private StrataSessionStore session(Path stateDir, TestStoreContext context) {
        StrataSessionStore store = (StrataSessionStore) StrataStores.persistentSessionStore("s",
                Duration.ofMillis(RETENTION)).get();
        store.init(context, store);
        opened.add(store);
        return store;
    }

    private static TestStoreContext context(Path stateDir, boolean exactlyOnce) {
        return new TestStoreContext(stateDir.toFile(), 0, exactlyOnce);
    }

    /** A copy of every file under {@code source}, taken now (the store may be open). */
    private Path image(Path source, String name) throws IOException {
        // A background thread may delete an obsolete file (a WAL segment after a flush) during the copy: copy again.
        for (int attempt = 1; ; attempt++) {
            try {
                return copyTree(source, root.resolve(name));
            } catch (java.nio.file.NoSuchFileException | java.io.UncheckedIOException e) {
                if (attempt == 5) {
                    throw e;
                }
                replaceTree(root.resolve(name), null);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static Path copyTree(Path source, Path target) throws IOException {
        try (Stream<Path> walk = Files.walk(source)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path t = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return target;
    }

    /** Deletes {@code target} and copies {@code replacement} (if not null) in its place. */
    private static void replaceTree(Path target, Path replacement) throws IOException {
        if (Files.exists(target)) {
            try (Stream<Path> walk = Files.walk(target)) {
                for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
        if (replacement == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(replacement)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Path t = target.resolve(replacement.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    private static Path segmentDir(Path stateDir, String store, long segmentId) {
        return stateDir.resolve("strata").resolve(store).resolve(Long.toString(segmentId * SEGMENT));
    }

    @Test
    void committedOffsetsAndDataSurviveAKillAndAFreshStoreHasNone() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        assertNull(store.committedOffset(CHANGELOG_0), "a fresh store has no committed offset");
        ctx.processing("input", 0, 5);
        store.put(key("a"), value("1"), 10);
        store.put(key("b"), value("2"), SEGMENT + 10);
        store.commit(Map.of(CHANGELOG_0, 7L));
        assertEquals(7L, store.committedOffset(CHANGELOG_0));
        ctx.processing("input", 0, 6);
        store.put(key("c"), value("3"), 20);

        Path killed = image(stateDir, "killed");
        StrataWindowStore reopened = window(killed, context(killed, false));
        assertEquals(7L, reopened.committedOffset(CHANGELOG_0));
        assertArrayEquals(value("1"), reopened.fetch(key("a"), 10));
        assertArrayEquals(value("2"), reopened.fetch(key("b"), SEGMENT + 10));
        assertEquals(Long.valueOf(5), reopened.getPosition().getPartitionPositions("input").get(0),
                "the position of the last commit");
    }

    @Test
    void aWindowSegmentThatLostItsWalTailHoldsTheOffsetBackToItsLastCommit() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"), 10);               // segment 0
        store.put(key("b"), value("1"), SEGMENT + 10);     // segment 1
        store.commit(Map.of(CHANGELOG_0, 10L));
        Path atFirstCommit = image(segmentDir(stateDir, "w", 0), "segment0-at-10");

        ctx.processing("input", 0, 2);
        store.put(key("a"), value("2"), 20);               // segment 0, lost below
        store.put(key("b"), value("2"), SEGMENT + 20);     // segment 1, kept
        store.commit(Map.of(CHANGELOG_0, 20L));
        Path crashed = image(stateDir, "crashed");
        replaceTree(segmentDir(crashed, "w", 0), atFirstCommit);

        StrataWindowStore reopened = window(crashed, context(crashed, false));
        assertEquals(10L, reopened.committedOffset(CHANGELOG_0),
                "segment 0 holds only what was written up to offset 10: the store must not report 20");
        assertNull(reopened.fetch(key("a"), 20), "the write lost with segment 0's WAL tail");
        assertArrayEquals(value("1"), reopened.fetch(key("a"), 10));
        assertEquals(Long.valueOf(1), reopened.getPosition().getPartitionPositions("input").get(0),
                "the position goes back with the offset");
    }

    @Test
    void aSegmentCreatedAfterACommitStartsWithThatCommitsOffsets() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"), 10);
        store.commit(Map.of(CHANGELOG_0, 10L));
        ctx.processing("input", 0, 2);
        store.put(key("b"), value("1"), 2 * SEGMENT + 10);   // creates segment 2, not yet committed

        Path killed = image(stateDir, "killed");
        StrataWindowStore reopened = window(killed, context(killed, false));
        assertEquals(10L, reopened.committedOffset(CHANGELOG_0),
                "the new segment holds nothing the commit at 10 covers");
    }

    @Test
    void aSessionSegmentThatLostItsWalTailHoldsTheOffsetBack() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataSessionStore store = session(stateDir, ctx);
        ctx.processing("input", 0, 1);
        store.put(new Windowed<>(key("a"), new SessionWindow(0, 10)), value("1"));
        store.put(new Windowed<>(key("b"), new SessionWindow(SEGMENT, SEGMENT + 10)), value("1"));
        store.commit(Map.of(CHANGELOG_0, 10L));
        Path atFirstCommit = image(segmentDir(stateDir, "s", 0), "segment0-at-10");

        ctx.processing("input", 0, 2);
        store.put(new Windowed<>(key("a"), new SessionWindow(0, 20)), value("2"));
        store.put(new Windowed<>(key("b"), new SessionWindow(SEGMENT, SEGMENT + 20)), value("2"));
        store.commit(Map.of(CHANGELOG_0, 20L));
        assertEquals(20L, store.committedOffset(CHANGELOG_0));
        Path crashed = image(stateDir, "crashed");
        replaceTree(segmentDir(crashed, "s", 0), atFirstCommit);

        StrataSessionStore reopened = session(crashed, context(crashed, false));
        assertEquals(10L, reopened.committedOffset(CHANGELOG_0));
        assertNull(reopened.fetchSession(key("a"), 0, 20));
        assertArrayEquals(value("1"), reopened.fetchSession(key("a"), 0, 10));
    }

    @Test
    void aStoreWithoutSegmentsKeepsItsOffsetsInTheMetadataStore() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataSessionStore store = session(stateDir, ctx);
        store.commit(Map.of(CHANGELOG_0, 10L));
        assertTrue(Files.isDirectory(stateDir.resolve("strata-meta").resolve("s")), "the metadata store was made");
        Path killed = image(stateDir, "killed");

        StrataSessionStore reopened = session(killed, context(killed, false));
        assertEquals(10L, reopened.committedOffset(CHANGELOG_0));
    }

    @Test
    void anEmptyCommitRemovesTheOffsetsAndANullOneRemovesOnePartitions() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        TopicPartition other = new TopicPartition("app-w-changelog", 1);
        store.put(key("a"), value("1"), 10);
        store.commit(Map.of(CHANGELOG_0, 10L, other, 3L));
        java.util.HashMap<TopicPartition, Long> withNull = new java.util.HashMap<>();
        withNull.put(other, null);
        store.commit(withNull);
        assertEquals(10L, store.committedOffset(CHANGELOG_0));
        assertNull(store.committedOffset(other));
        Path first = image(stateDir, "first");
        store.commit(Map.of());
        assertNull(store.committedOffset(CHANGELOG_0));
        Path second = image(stateDir, "second");

        StrataWindowStore atFirst = window(first, context(first, false));
        assertEquals(10L, atFirst.committedOffset(CHANGELOG_0));
        assertNull(atFirst.committedOffset(other));
        assertNull(window(second, context(second, false)).committedOffset(CHANGELOG_0));
    }

    private static List<ConsumerRecord<byte[], byte[]>> windowChangelog(long firstOffset, int records, long timeStep) {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            Bytes changelogKey = WindowKeySchema.toStoreKeyBinary(key("k" + i), i * timeStep, 0);
            batch.add(new ConsumerRecord<>(CHANGELOG_0.topic(), 0, firstOffset + i, changelogKey.get(), value("v" + i)));
        }
        return batch;
    }

    @Test
    void aRestoreBatchRecordsItsLastOffsetAndBecomesDurableWithItAtTheCheckpoint() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        ((RecordBatchingStateRestoreCallback) ctx.restoreCallback).restoreBatch(windowChangelog(100, 10, 100_000));
        assertEquals(109L, store.committedOffset(CHANGELOG_0));
        assertTrue(store.unloggedStores() > 0, "a restore batch is written without the WAL");

        // A kill before any flush loses the batch's records and its offsets together.
        Path beforeCheckpoint = image(stateDir, "before-checkpoint");
        StrataWindowStore lost = window(beforeCheckpoint, context(beforeCheckpoint, false));
        assertNull(lost.committedOffset(CHANGELOG_0), "offsets must not outlive the unlogged records they cover");
        assertNull(lost.fetch(key("k9"), 900_000));

        // A commit after a few restored records (a standby's) writes its offsets without the WAL too.
        store.commit(Map.of(CHANGELOG_0, 109L));
        assertTrue(store.unloggedStores() > 0, "a commit without buffered writes does not flush a short restore");
        Path afterStandbyCommit = image(stateDir, "after-standby-commit");
        assertNull(window(afterStandbyCommit, context(afterStandbyCommit, false)).committedOffset(CHANGELOG_0));

        // Processing starts: the commit that carries buffered writes flushes the restored records first.
        ctx.processing("input", 0, 1);
        store.put(key("n"), value("new"), 900_010);
        store.commit(Map.of(CHANGELOG_0, 110L));
        assertEquals(0, store.unloggedStores());
        Path killed = image(stateDir, "killed");
        StrataWindowStore reopened = window(killed, context(killed, false));
        assertEquals(110L, reopened.committedOffset(CHANGELOG_0));
        assertArrayEquals(value("v9"), reopened.fetch(key("k9"), 900_000));
        assertArrayEquals(value("new"), reopened.fetch(key("n"), 900_010));
    }

    @Test
    void aCommitAfterManyRestoredRecordsIsACheckpoint() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        int records = (int) AbstractSegmentedStore.UNLOGGED_RECORDS_PER_CHECKPOINT;
        List<ConsumerRecord<byte[], byte[]>> changelog = windowChangelog(0, records, 10);
        for (int from = 0; from < records; from += 1_000) {
            ((RecordBatchingStateRestoreCallback) ctx.restoreCallback).restoreBatch(
                    changelog.subList(from, from + 1_000));
        }
        store.commit(Map.of(CHANGELOG_0, records - 1L));
        assertEquals(0, store.unloggedStores(), "the commit flushed the restored records");
        Path killed = image(stateDir, "killed");
        StrataWindowStore reopened = window(killed, context(killed, false));
        assertEquals(records - 1L, reopened.committedOffset(CHANGELOG_0));
        int last = records - 1;
        assertArrayEquals(value("v" + last), reopened.fetch(key("k" + last), last * 10L));
        assertArrayEquals(value("v0"), reopened.fetch(key("k0"), 0));
    }

    @Test
    void anUncleanShutdownIsTaskCorruptionUnderExactlyOnceOnly() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, true);
        StrataWindowStore store = window(stateDir, ctx);
        store.put(key("a"), value("1"), 10);
        store.commit(Map.of(CHANGELOG_0, 10L));
        store.put(key("a"), value("uncommitted"), 10);
        Path killed = image(stateDir, "killed");

        StrataWindowStore eos = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                Duration.ofMillis(RETENTION), Duration.ofMillis(1_000), false).get();
        assertThrows(TaskCorruptedException.class, () -> eos.init(context(killed, true), eos));
        assertTrue(!eos.isOpen(), "a refused init leaves the store closed");
        StrataWindowStore alos = window(killed, context(killed, false));
        assertEquals(10L, alos.committedOffset(CHANGELOG_0));
        alos.close();

        store.close();
        StrataWindowStore clean = window(stateDir, context(stateDir, true));
        assertEquals(10L, clean.committedOffset(CHANGELOG_0), "a clean close opens under exactly-once");
    }

    @Test
    void theVersionedStoreReportsTheSmallestOffsetOfItsLatestStoreAndSegments() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataVersionedStore store = new StrataVersionedStore("v", StrataStores.SEGMENT_CONFIG, 60_000, 20_000);
        store.init(ctx, store);
        opened.add(store);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"), 1_000);
        store.commit(Map.of(CHANGELOG_0, 10L));
        Path latestAtFirstCommit = image(stateDir.resolve("strata").resolve("v").resolve("latest"), "latest-at-10");
        store.put(key("a"), value("2"), 2_000);
        store.commit(Map.of(CHANGELOG_0, 20L));
        Path crashed = image(stateDir, "crashed");
        replaceTree(crashed.resolve("strata").resolve("v").resolve("latest"), latestAtFirstCommit);

        StrataVersionedStore reopened = new StrataVersionedStore("v", StrataStores.SEGMENT_CONFIG, 60_000, 20_000);
        reopened.init(context(crashed, false), reopened);
        opened.add(reopened);
        assertEquals(10L, reopened.committedOffset(CHANGELOG_0));
        assertEquals(Position.emptyPosition().withComponent("input", 0, 1L), reopened.getPosition());
    }

    /** A versioned store's changelog: per key two versions (time 1,000 + i and 30,000 + i), offsets from {@code firstOffset}. */
    private static List<ConsumerRecord<byte[], byte[]>> versionedChangelog(long firstOffset, int keys) {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        long offset = firstOffset;
        for (String version : List.of("a", "b")) {
            for (int i = 0; i < keys; i++) {
                long time = (version.equals("a") ? 1_000 : 30_000) + i;
                batch.add(new ConsumerRecord<>(CHANGELOG_0.topic(), 0, offset++, time,
                        org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0, 0, key("k" + i).get(),
                        value(version + i), new org.apache.kafka.common.header.internals.RecordHeaders(),
                        java.util.Optional.empty()));
            }
        }
        return batch;
    }

    private StrataVersionedStore versioned(TestStoreContext context) {
        StrataVersionedStore store = new StrataVersionedStore("v", StrataStores.SEGMENT_CONFIG, 60_000, 20_000);
        store.init(context, store);
        opened.add(store);
        return store;
    }

    @Test
    void aVersionedRestoreBatchIsUnloggedWithItsOffsetAndDurableWithItAtTheCheckpoint() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataVersionedStore store = versioned(ctx);
        ((RecordBatchingStateRestoreCallback) ctx.restoreCallback).restoreBatch(versionedChangelog(100, 10));
        assertEquals(119L, store.committedOffset(CHANGELOG_0));
        assertEquals(2, store.unloggedStores(), "the latest store and the history segment, written without the WAL");
        // the batch's later puts read its earlier ones: the first versions went to the history
        assertArrayEquals(value("b3"), store.get(key("k3")).value());
        assertArrayEquals(value("a3"), store.get(key("k3"), 1_500).value());
        assertEquals(30_003L, store.get(key("k3"), 1_500).validTo().orElseThrow());

        // A kill before any flush loses the batch's records and its offsets together.
        Path beforeCheckpoint = image(stateDir, "before-checkpoint");
        StrataVersionedStore lost = versioned(context(beforeCheckpoint, false));
        assertNull(lost.committedOffset(CHANGELOG_0), "offsets must not outlive the unlogged records they cover");
        assertNull(lost.get(key("k3")));
        assertNull(lost.get(key("k3"), 1_500));

        // A standby's commit between restore batches writes its offsets without the WAL too.
        store.commit(Map.of(CHANGELOG_0, 119L));
        assertEquals(2, store.unloggedStores(), "a commit after a short restore does not flush");
        Path afterStandbyCommit = image(stateDir, "after-standby-commit");
        assertNull(versioned(context(afterStandbyCommit, false)).committedOffset(CHANGELOG_0));

        // Processing starts: its first write (logged) flushes the latest store; the next commit,
        // after records written with the WAL, flushes the history segment it did not write.
        ctx.processing("input", 0, 1);
        store.put(key("n"), value("new"), 40_000);
        store.commit(Map.of(CHANGELOG_0, 120L));
        assertEquals(0, store.unloggedStores());
        Path killed = image(stateDir, "killed");
        StrataVersionedStore reopened = versioned(context(killed, false));
        assertEquals(120L, reopened.committedOffset(CHANGELOG_0));
        assertArrayEquals(value("b9"), reopened.get(key("k9")).value());
        assertArrayEquals(value("a9"), reopened.get(key("k9"), 1_500).value());
        assertArrayEquals(value("new"), reopened.get(key("n")).value());
    }
}
