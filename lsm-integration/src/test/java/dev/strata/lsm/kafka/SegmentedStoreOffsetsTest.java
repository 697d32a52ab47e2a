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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
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

    /** The segmented stores that restore in sorted chunks, with what a test needs of each. */
    enum ChunkedKind {
        WINDOW, TIME_ORDERED_WINDOW, SESSION;

        AbstractSegmentedStore open(TestStoreContext context) {
            AbstractSegmentedStore store = this == SESSION
                    ? new StrataSessionStore("s", StrataStores.SEGMENT_CONFIG, RETENTION, SEGMENT, false)
                    : new StrataWindowStore("w", StrataStores.SEGMENT_CONFIG, RETENTION, 1_000, false, SEGMENT,
                    this == TIME_ORDERED_WINDOW);
            store.init(context, store);
            return store;
        }

        /** The changelog key of {@code key}'s window starting at {@code start} (a session: ending {@code span} later). */
        byte[] changelogKey(String key, long start, long span) {
            return this == SESSION
                    ? org.apache.kafka.streams.state.internals.SessionKeySchema.toBinary(
                            new Windowed<>(key(key), new SessionWindow(start, start + span))).get()
                    : WindowKeySchema.toStoreKeyBinary(key(key), start, 0).get();
        }

        /** What the model calls that record. */
        String id(String key, long start, long span) {
            return this == SESSION ? key + "@" + start + "-" + (start + span) : key + "@" + start;
        }

        /** Every record the store returns, by {@link #id}, read every way the store keeps them. */
        Map<String, String> contents(AbstractSegmentedStore store) {
            Map<String, String> all = new TreeMap<>();
            if (this == SESSION) {
                read(((StrataSessionStore) store).findSessions(null, null, 0, Long.MAX_VALUE), all, true);
                return all;
            }
            StrataWindowStore w = (StrataWindowStore) store;
            read(w.all(), all, false);     // the time index, when time-ordered
            Map<String, String> byKey = new TreeMap<>();
            read(w.fetch(null, null, 0, Long.MAX_VALUE), byKey, false);
            assertEquals(all, byKey, "the key-ordered records and the time index disagree");
            return all;
        }

        private static void read(org.apache.kafka.streams.state.KeyValueIterator<Windowed<Bytes>, byte[]> it,
                                 Map<String, String> into, boolean session) {
            try (it) {
                while (it.hasNext()) {
                    org.apache.kafka.streams.KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                    String key = new String(kv.key.key().get(), StandardCharsets.UTF_8);
                    String id = key + "@" + kv.key.window().start() + (session ? "-" + kv.key.window().end() : "");
                    assertNull(into.put(id, new String(kv.value, StandardCharsets.UTF_8)), "returned twice: " + id);
                }
            }
        }
    }

    /**
     * A changelog of {@code records} records from offset 0, 50 ms of event time apart over two
     * segments, keys over 40 names, a third of them rewriting (or, one in ten, deleting) a
     * recent record so that writes of one key meet in a batch, a chunk and across both.
     */
    private static List<ConsumerRecord<byte[], byte[]>> chunkedChangelog(ChunkedKind kind, int records,
                                                                         List<String> ids) {
        Random random = new Random(31);
        List<ConsumerRecord<byte[], byte[]>> changelog = new ArrayList<>();
        List<long[]> recent = new ArrayList<>();   // {key, start, span}
        for (int i = 0; i < records; i++) {
            long time = i * 50L;
            long[] r;
            if (!recent.isEmpty() && random.nextInt(3) == 0) {
                r = recent.get(random.nextInt(recent.size()));
            } else {
                r = new long[] {random.nextInt(40), time - time % 1_000, random.nextInt(500)};
                recent.add(r);
                if (recent.size() > 200) {
                    recent.remove(0);
                }
            }
            String key = "k" + r[0];
            byte[] value = random.nextInt(10) == 0 ? null : value("v" + i);
            changelog.add(new ConsumerRecord<>(CHANGELOG_0.topic(), 0, i, kind.changelogKey(key, r[1], r[2]), value));
            ids.add(kind.id(key, r[1], r[2]));
        }
        return changelog;
    }

    /** The records a store holds after the changelog's records up to {@code lastOffset} are applied. */
    private static Map<String, String> modelUpTo(List<ConsumerRecord<byte[], byte[]>> changelog, List<String> ids,
                                                 long lastOffset) {
        Map<String, String> model = new TreeMap<>();
        for (int i = 0; i <= lastOffset; i++) {
            byte[] value = changelog.get(i).value();
            if (value == null) {
                model.remove(ids.get(i));
            } else {
                model.put(ids.get(i), new String(value, StandardCharsets.UTF_8));
            }
        }
        return model;
    }

    private static void restore(TestStoreContext ctx, List<ConsumerRecord<byte[], byte[]>> changelog, int from,
                                int to) {
        for (int b = from; b < to; b += 100) {
            ((RecordBatchingStateRestoreCallback) ctx.restoreCallback).restoreBatch(
                    changelog.subList(b, Math.min(to, b + 100)));
        }
    }

    /**
     * A restore in sorted chunks interrupted by a kill loses nothing its checkpoint acknowledged,
     * never reports an offset ahead of its data, and restores again from that offset to the
     * state of the whole changelog; a close without a commit keeps every restored record.
     */
    @ParameterizedTest
    @EnumSource(ChunkedKind.class)
    void aRestoreInSortedChunksKilledLosesNothingCheckpointedAndResumesFromItsOffset(ChunkedKind kind)
            throws IOException {
        killedRestore(kind, false);
    }

    /** As above, each chunk's records going to their segments as ingested tables. */
    @ParameterizedTest
    @EnumSource(ChunkedKind.class)
    void aRestoreThroughTableIngestKilledLosesNothingCheckpointedAndResumesFromItsOffset(ChunkedKind kind)
            throws IOException {
        killedRestore(kind, true);
    }

    private void killedRestore(ChunkedKind kind, boolean ingest) throws IOException {
        int records = (int) AbstractSegmentedStore.UNLOGGED_RECORDS_PER_CHECKPOINT + 2_000;
        List<String> ids = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> changelog = chunkedChangelog(kind, records, ids);
        int checkpointed = (int) AbstractSegmentedStore.UNLOGGED_RECORDS_PER_CHECKPOINT + 500;
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        AbstractSegmentedStore store = kind.open(ctx);
        opened.add(store);
        store.maxBufferedBytes(32 * 1024);   // chunks of a few hundred records: several per run below
        store.restoreIngestMinRecords(ingest ? 1 : Integer.MAX_VALUE);

        restore(ctx, changelog, 0, checkpointed);
        assertEquals(ingest, store.ingestedTables() > 0);
        assertEquals(checkpointed - 1L, store.committedOffset(CHANGELOG_0), "the chunk's offset, answered at once");
        store.commit(Map.of(CHANGELOG_0, checkpointed - 1L));   // past 10,000 restored records: the checkpoint
        assertEquals(0, store.unloggedStores(), "the checkpoint flushed every restored record");

        int killedAt = records - 270;
        restore(ctx, changelog, checkpointed, killedAt);
        assertTrue(store.holdsRestoredChunk(), "the last batches wait in a chunk");
        Path killed = image(stateDir, "killed");

        TestStoreContext again = context(killed, false);
        AbstractSegmentedStore reopened = kind.open(again);
        opened.add(reopened);
        reopened.restoreIngestMinRecords(ingest ? 1 : Integer.MAX_VALUE);
        long resumeAfter = reopened.committedOffset(CHANGELOG_0);
        assertTrue(resumeAfter >= checkpointed - 1L && resumeAfter < killedAt,
                "nothing checkpointed lost, nothing unrestored claimed: " + resumeAfter);
        if (!ingest) {
            assertEquals(modelUpTo(changelog, ids, resumeAfter), kind.contents(reopened),
                    "the image holds exactly the records up to its offset");
        }
        // Ingested: a segment holds its tables' records with their offsets, the other segment's
        // offsets of those chunks went unlogged, so the image may hold records past its offset
        // (never fewer); restoring again from the offset gives the changelog's state below.

        restore(again, changelog, (int) resumeAfter + 1, records);
        assertTrue(reopened.holdsRestoredChunk());
        reopened.close();   // no commit: the close writes the chunk, its offset with it
        AbstractSegmentedStore closed = kind.open(context(killed, false));
        opened.add(closed);
        assertEquals(records - 1L, closed.committedOffset(CHANGELOG_0));
        assertEquals(modelUpTo(changelog, ids, records - 1L), kind.contents(closed));
    }

    /**
     * A restore whose chunks go to their segments as ingested tables reads back exactly the
     * changelog's last values: rewrites and deletes within a chunk and across chunks and both
     * segments, keys put in an earlier ingested table and deleted in a later one, offsets and
     * position with the records; and so again after a reopen, with no table file left behind.
     */
    @ParameterizedTest
    @EnumSource(ChunkedKind.class)
    void aRestoreThroughTableIngestHoldsTheChangelogsLastValues(ChunkedKind kind) throws IOException {
        int generated = 6_000;
        List<String> ids = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> changelog = chunkedChangelog(kind, generated, ids);
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        AbstractSegmentedStore store = kind.open(ctx);
        opened.add(store);
        store.maxBufferedBytes(32 * 1024);
        store.restoreIngestMinRecords(1);

        restore(ctx, changelog, 0, generated);
        assertEquals(modelUpTo(changelog, ids, generated - 1L), kind.contents(store));   // writes the last chunk
        long tables = store.ingestedTables();
        assertTrue(tables > 4, "several chunks ingested: " + tables);

        // Then a chunk deleting records that earlier ingested chunks put (and putting some back).
        Map<String, String> live = modelUpTo(changelog, ids, generated - 1L);
        int deleted = 0;
        for (int i = 0; i < 2_000 && deleted < 60; i++) {
            String id = ids.get(i);
            if (live.containsKey(id) && changelog.get(i).value() != null) {
                int offset = changelog.size();
                boolean putBack = deleted % 3 == 0;
                changelog.add(new ConsumerRecord<>(CHANGELOG_0.topic(), 0, offset, changelog.get(i).key(), null));
                ids.add(id);
                if (putBack) {
                    changelog.add(new ConsumerRecord<>(CHANGELOG_0.topic(), 0, offset + 1, changelog.get(i).key(),
                            value("back" + offset)));
                    ids.add(id);
                }
                live.remove(id);
                deleted++;
            }
        }
        assertEquals(60, deleted);
        restore(ctx, changelog, generated, changelog.size());
        Map<String, String> expected = modelUpTo(changelog, ids, changelog.size() - 1L);
        assertTrue(expected.size() < live.size() + 60 && expected.size() > live.size(), "deletes and puts back");
        assertEquals(expected, kind.contents(store));
        assertTrue(store.ingestedTables() > tables, "the deletes went in as a table");
        assertEquals(changelog.size() - 1L, store.committedOffset(CHANGELOG_0));
        Path leftovers = store.restoreIngestDirectory();
        try (Stream<Path> files = Files.list(leftovers)) {
            assertEquals(0, files.count(), "every table file was moved into its segment");
        }

        // Crash image without a commit: each ingested table holds its records with their
        // offsets; the other segment's offsets went unlogged, so the store may report an older
        // offset (never a newer one), from which a restore again reaches the same state.
        Path crashed = image(stateDir, "crashed");
        Path stray = crashed.resolve(stateDir.relativize(leftovers)).resolve("segment-0-1.sst");
        Files.write(stray, new byte[] {1, 2, 3});   // a table file written but never ingested
        TestStoreContext crashCtx = context(crashed, false);
        AbstractSegmentedStore afterCrash = kind.open(crashCtx);
        opened.add(afterCrash);
        assertTrue(!Files.exists(stray), "init deletes a table file left behind");
        Long resumeAfter = afterCrash.committedOffset(CHANGELOG_0);
        assertTrue(resumeAfter != null && resumeAfter <= changelog.size() - 1L, "offset " + resumeAfter);
        afterCrash.restoreIngestMinRecords(1);
        restore(crashCtx, changelog, (int) (resumeAfter + 1), changelog.size());
        assertEquals(expected, kind.contents(afterCrash));
        assertEquals(changelog.size() - 1L, afterCrash.committedOffset(CHANGELOG_0));

        store.close();
        AbstractSegmentedStore reopened = kind.open(context(stateDir, false));
        opened.add(reopened);
        assertEquals(changelog.size() - 1L, reopened.committedOffset(CHANGELOG_0));
        assertEquals(expected, kind.contents(reopened));
    }

    /** A read while restored records wait in a chunk sees them: the read writes the chunk first. */
    @ParameterizedTest
    @EnumSource(ChunkedKind.class)
    void aReadDuringARestoreSeesTheRecordsHeldInTheChunk(ChunkedKind kind) {
        List<String> ids = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> changelog = chunkedChangelog(kind, 1_000, ids);
        TestStoreContext ctx = context(root.resolve("state"), false);
        AbstractSegmentedStore store = kind.open(ctx);
        opened.add(store);
        restore(ctx, changelog, 0, 1_000);
        assertTrue(store.holdsRestoredChunk());
        assertEquals(modelUpTo(changelog, ids, 999), kind.contents(store));
        assertTrue(!store.holdsRestoredChunk(), "the read wrote the chunk");
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

    /**
     * A close without a commit after a restore keeps the restored records with their offset:
     * Strata's close did not flush memtables holding unlogged writes (lsm-core fixed it in
     * session 18: a clean close now flushes them), so unlogged restored records were lost (the
     * store reopened at the offset of its last checkpoint, or none).
     */
    @Test
    void aCloseWithoutACommitKeepsTheUnloggedRestoredRecords() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir, false);
        StrataWindowStore store = window(stateDir, ctx);
        ((RecordBatchingStateRestoreCallback) ctx.restoreCallback).restoreBatch(windowChangelog(100, 10, 100_000));
        store.close();
        StrataWindowStore reopened = window(stateDir, context(stateDir, false));
        assertEquals(109L, reopened.committedOffset(CHANGELOG_0));
        assertArrayEquals(value("v9"), reopened.fetch(key("k9"), 900_000));

        Path versionedDir = root.resolve("versioned");
        TestStoreContext vctx = context(versionedDir, false);
        StrataVersionedStore versioned = versioned(vctx);
        ((RecordBatchingStateRestoreCallback) vctx.restoreCallback).restoreBatch(versionedChangelog(100, 10));
        versioned.close();
        StrataVersionedStore reopenedVersioned = versioned(context(versionedDir, false));
        assertEquals(119L, reopenedVersioned.committedOffset(CHANGELOG_0));
        assertArrayEquals(value("b3"), reopenedVersioned.get(key("k3")).value());
        assertArrayEquals(value("a3"), reopenedVersioned.get(key("k3"), 1_500).value());
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
