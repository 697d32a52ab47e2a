package dev.strata.lsm.kafka;

import dev.strata.lsm.ConfigException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coalesced commits (docs/kafka-streams.md, "Coalesced commits"): a commit that comes within
 * the coalescing interval of the last written one is held in memory with its writes; a kill
 * loses both together (the store reports the last written commit's offsets and none of the
 * held writes), and the next written commit, a spill, a flush or the close writes them.
 * Kill images as in {@link SegmentedStoreOffsetsTest}: a copy of the open store's files.
 */
class CoalescedCommitTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-counts-changelog", 0);
    /** Longer than any test: every commit after the first written one is held. */
    private static final long HOLD_ALL = TimeUnit.SECONDS.toNanos(600);

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

    private static TestStoreContext context(Path stateDir) {
        return new TestStoreContext(stateDir.toFile(), 0, false);
    }

    private StrataKeyValueStore kv(TestStoreContext context) {
        StrataKeyValueStore store = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts").get();
        store.init(context, store);
        opened.add(store);
        return store;
    }

    private StrataWindowStore window(TestStoreContext context) {
        StrataWindowStore store = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                Duration.ofMinutes(10), Duration.ofSeconds(1), false).get();
        store.init(context, store);
        opened.add(store);
        return store;
    }

    private StrataSessionStore session(TestStoreContext context) {
        StrataSessionStore store = (StrataSessionStore) StrataStores.persistentSessionStore("s",
                Duration.ofMinutes(10)).get();
        store.init(context, store);
        opened.add(store);
        return store;
    }

    /** A copy of every file under {@code source}, taken now, with the store open: a kill image. */
    private Path image(Path source, String name) throws IOException {
        Path target = root.resolve(name);
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> walk = Files.walk(source)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    Path t = target.resolve(source.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(t);
                    } else {
                        Files.copy(p, t);
                    }
                }
                return target;
            } catch (java.nio.file.NoSuchFileException | java.io.UncheckedIOException e) {
                // a background thread deleted an obsolete file during the copy: copy again
                if (attempt == 5) {
                    throw e;
                }
                try (Stream<Path> walk = Files.walk(target)) {
                    for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    @Test
    void aHeldKeyValueCommitIsLostWithItsWritesByAKillAndWrittenByTheClose() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir);
        StrataKeyValueStore store = kv(ctx);
        store.commitCoalesceNanos(HOLD_ALL);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"));
        store.commit(Map.of(CHANGELOG, 10L));
        assertFalse(store.holdsCommit(), "the first commit is written");
        ctx.processing("input", 0, 2);
        store.put(key("b"), value("2"));
        store.commit(Map.of(CHANGELOG, 11L));
        assertTrue(store.holdsCommit(), "a commit within the interval is held");
        assertEquals(11L, store.committedOffset(CHANGELOG), "the held commit's offset is the committed one");
        assertArrayEquals(value("2"), store.get(key("b")), "held writes are read");

        Path killed = image(stateDir, "killed");
        StrataKeyValueStore afterKill = kv(context(killed));
        assertEquals(10L, afterKill.committedOffset(CHANGELOG), "the last written commit's offset");
        assertArrayEquals(value("1"), afterKill.get(key("a")));
        assertNull(afterKill.get(key("b")), "the held commit's write is lost with its offset");
        assertEquals(Long.valueOf(1), afterKill.getPosition().getPartitionPositions("input").get(0));

        store.close();
        StrataKeyValueStore reopened = kv(context(stateDir));
        assertEquals(11L, reopened.committedOffset(CHANGELOG), "the close wrote the held commit");
        assertArrayEquals(value("2"), reopened.get(key("b")));
        assertEquals(Long.valueOf(2), reopened.getPosition().getPartitionPositions("input").get(0));
    }

    @Test
    void aKeyValueCommitAfterTheIntervalWritesTheHeldOnesAndARemovalIsNeverHeld() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir);
        StrataKeyValueStore store = kv(ctx);
        store.commitCoalesceNanos(HOLD_ALL);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"));
        store.commit(Map.of(CHANGELOG, 10L));
        store.put(key("b"), value("2"));
        store.commit(Map.of(CHANGELOG, 11L));
        assertTrue(store.holdsCommit());
        store.commitCoalesceNanos(0);  // the interval has passed
        store.put(key("c"), value("3"));
        store.commit(Map.of(CHANGELOG, 12L));
        assertFalse(store.holdsCommit());

        Path killed = image(stateDir, "killed");
        StrataKeyValueStore afterKill = kv(context(killed));
        assertEquals(12L, afterKill.committedOffset(CHANGELOG));
        assertArrayEquals(value("2"), afterKill.get(key("b")), "the held commit's write went with the next commit");
        assertArrayEquals(value("3"), afterKill.get(key("c")));

        store.commitCoalesceNanos(HOLD_ALL);
        store.put(key("d"), value("4"));
        store.commit(Map.of());
        assertFalse(store.holdsCommit(), "a commit removing the offsets is written at once");
        assertNull(store.committedOffset(CHANGELOG));
        Path removed = image(stateDir, "removed");
        StrataKeyValueStore afterRemoval = kv(context(removed));
        assertNull(afterRemoval.committedOffset(CHANGELOG));
        assertArrayEquals(value("4"), afterRemoval.get(key("d")));
    }

    @Test
    void aSpillOfTheBufferTakesTheHeldCommitAlong() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir);
        StrataKeyValueStore store = new StrataKeyValueStore("counts", StrataStores.DEFAULT_CONFIG, 4096);
        store.init(ctx, store);
        opened.add(store);
        store.commitCoalesceNanos(HOLD_ALL);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"));
        store.commit(Map.of(CHANGELOG, 10L));
        store.put(key("b"), value("2"));
        store.commit(Map.of(CHANGELOG, 11L));
        assertTrue(store.holdsCommit());
        store.put(key("big"), new byte[8192]);  // past the 4 KiB limit: spilled
        assertFalse(store.holdsCommit(), "the spill wrote the held commit");

        Path killed = image(stateDir, "killed");
        StrataKeyValueStore afterKill = kv(context(killed));
        assertEquals(11L, afterKill.committedOffset(CHANGELOG));
        assertArrayEquals(value("2"), afterKill.get(key("b")));
        assertEquals(8192, afterKill.get(key("big")).length, "the spill is ahead of the offsets, as before");
    }

    @Test
    void aHeldWindowCommitIsLostWithItsWritesByAKillAndWrittenByFlush() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir);
        StrataWindowStore store = window(ctx);
        store.commitCoalesceNanos(HOLD_ALL);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"), 10);
        store.commit(Map.of(CHANGELOG, 10L));
        assertFalse(store.holdsCommit());
        ctx.processing("input", 0, 2);
        store.put(key("b"), value("2"), 20);
        store.commit(Map.of(CHANGELOG, 11L));
        assertTrue(store.holdsCommit());
        assertEquals(11L, store.committedOffset(CHANGELOG));
        assertArrayEquals(value("2"), store.fetch(key("b"), 20));

        Path killed = image(stateDir, "killed");
        StrataWindowStore afterKill = window(context(killed));
        assertEquals(10L, afterKill.committedOffset(CHANGELOG));
        assertArrayEquals(value("1"), afterKill.fetch(key("a"), 10));
        assertNull(afterKill.fetch(key("b"), 20), "the held commit's write is lost with its offset");

        store.flush();
        assertFalse(store.holdsCommit());
        Path flushed = image(stateDir, "flushed");
        StrataWindowStore afterFlush = window(context(flushed));
        assertEquals(11L, afterFlush.committedOffset(CHANGELOG));
        assertArrayEquals(value("2"), afterFlush.fetch(key("b"), 20));
    }

    @Test
    void aHeldSessionCommitIsWrittenByTheNextCommitAfterTheIntervalAndByTheClose() throws IOException {
        Path stateDir = root.resolve("state");
        TestStoreContext ctx = context(stateDir);
        StrataSessionStore store = session(ctx);
        store.commitCoalesceNanos(HOLD_ALL);
        ctx.processing("input", 0, 1);
        store.put(new Windowed<>(key("a"), new SessionWindow(0, 10)), value("1"));
        store.commit(Map.of(CHANGELOG, 10L));
        store.put(new Windowed<>(key("b"), new SessionWindow(5, 15)), value("2"));
        store.commit(Map.of(CHANGELOG, 11L));
        assertTrue(store.holdsCommit());
        store.commitCoalesceNanos(0);
        store.put(new Windowed<>(key("c"), new SessionWindow(7, 17)), value("3"));
        store.commit(Map.of(CHANGELOG, 12L));
        assertFalse(store.holdsCommit());
        Path killed = image(stateDir, "killed");
        StrataSessionStore afterKill = session(context(killed));
        assertEquals(12L, afterKill.committedOffset(CHANGELOG));
        assertArrayEquals(value("2"), afterKill.fetchSession(key("b"), 5, 15));

        store.commitCoalesceNanos(HOLD_ALL);
        store.put(new Windowed<>(key("d"), new SessionWindow(8, 18)), value("4"));
        store.commit(Map.of(CHANGELOG, 13L));
        assertTrue(store.holdsCommit());
        store.close();
        StrataSessionStore reopened = session(context(stateDir));
        assertEquals(13L, reopened.committedOffset(CHANGELOG), "the close wrote the held commit");
        assertArrayEquals(value("4"), reopened.fetchSession(key("d"), 8, 18));
    }

    @Test
    void theIntervalIsReadFromTheAppConfigsAndABadOneIsRefusedNamingTheKey() {
        assertEquals(TimeUnit.MILLISECONDS.toNanos(StrataStoreConfigs.DEFAULT_COMMIT_COALESCE_MS),
                StrataStoreConfigs.commitCoalesceNanos(Map.of()));
        assertEquals(0, StrataStoreConfigs.commitCoalesceNanos(Map.of(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, "0")));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(7),
                StrataStoreConfigs.commitCoalesceNanos(Map.of(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, 7)));
        ConfigException bad = assertThrows(ConfigException.class, () -> StrataStoreConfigs.commitCoalesceNanos(
                Map.of(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, "soon")));
        assertTrue(bad.getMessage().contains(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG), bad.getMessage());
        ConfigException negative = assertThrows(ConfigException.class, () -> StrataStoreConfigs.commitCoalesceNanos(
                Map.of(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, -1)));
        assertTrue(negative.getMessage().contains(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG), negative.getMessage());

        // A store's init refuses a bad value, naming the key, and opens nothing.
        TestStoreContext badCtx = context(root.resolve("bad"));
        badCtx.appConfigs().put(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, "soon");
        StrataKeyValueStore refused = (StrataKeyValueStore) StrataStores.persistentKeyValueStore("counts").get();
        org.apache.kafka.streams.errors.ProcessorStateException failed = assertThrows(
                org.apache.kafka.streams.errors.ProcessorStateException.class, () -> refused.init(badCtx, refused));
        assertTrue(failed.getCause() instanceof ConfigException
                && failed.getCause().getMessage().contains(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG), failed.toString());
        assertFalse(refused.isOpen());
        StrataWindowStore refusedWindow = (StrataWindowStore) StrataStores.persistentWindowStore("w",
                Duration.ofMinutes(10), Duration.ofSeconds(1), false).get();
        ConfigException windowFailed = assertThrows(ConfigException.class, () -> refusedWindow.init(badCtx, refusedWindow));
        assertTrue(windowFailed.getMessage().contains(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG));
        assertFalse(refusedWindow.isOpen());

        // A store configured with 0 writes every commit.
        TestStoreContext ctx = context(root.resolve("state"));
        ctx.appConfigs().put(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, 0);
        StrataKeyValueStore store = kv(ctx);
        ctx.processing("input", 0, 1);
        store.put(key("a"), value("1"));
        store.commit(Map.of(CHANGELOG, 10L));
        store.put(key("b"), value("2"));
        store.commit(Map.of(CHANGELOG, 11L));
        assertFalse(store.holdsCommit());
    }
}
