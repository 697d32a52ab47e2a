package dev.strata.lsm.engine;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.SlowTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Subcompactions (issue 36; RocksDB's {@code max_subcompactions}): a large rewrite is split into
 * key-range pieces merged in parallel on the block-merge threads and installed in one version
 * edit. The pieces' outputs form one sorted run of disjoint tables holding exactly what the
 * merge unsplit holds (overwrites, deletions, the versions a snapshot needs); a failed piece or
 * a close under the pieces installs nothing and leaves no file behind. Where the pieces split:
 * {@link SubcompactionBoundariesTest}. Slow lane: each test loads and merges 20,000 keys twice or more.
 */
@SlowTest
class SubcompactionSlowTest {
    private static final int KEYS = 20_000;
    /** Level-1 and output tables: about 64 KiB, so the merge reads far more than four of them. */
    private static final long FILE_BYTES = 64 << 10;

    private final ScriptedPolicy policy = new ScriptedPolicy();

    @TempDir
    Path tmp;

    // Keys, values and a level's component ids as ReuseBlocksTest writes them.
    private static byte[] key(int i) {
        return ReuseBlocksTest.key(i);
    }

    private static byte[] value(int i, int version) {
        return ReuseBlocksTest.value(i, version);
    }

    private static List<ComponentId> ids(TreeView tree, int level) {
        return ReuseBlocksTest.ids(tree, level);
    }

    /** Storage that records the threads creating merge outputs, and can fail one piece's writes. */
    private static final class WatchedIO extends ForwardingStorageIO {
        final Set<String> mergeWriters = ConcurrentHashMap.newKeySet();
        /** While set, a merge output created on a block-merge thread fails its first append. */
        volatile boolean failOnBlockThread;
        final AtomicInteger failures = new AtomicInteger();

        WatchedIO() {
            super(new FileChannelStorageIO());
        }

        @Override
        public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
            PageFile f = super.open(path, mode, purpose);
            if (purpose != IoPurpose.MERGE || mode != OpenMode.CREATE_NEW) {
                return f;
            }
            String thread = Thread.currentThread().getName();
            mergeWriters.add(thread);
            if (!failOnBlockThread || !thread.startsWith("strata-block-")) {
                return f;
            }
            return new ForwardingPageFile(f) {
                @Override
                public long append(ByteBuffer src) throws IOException {
                    failures.incrementAndGet();
                    throw new IOException("injected: a subcompaction's write fails");
                }

                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    failures.incrementAndGet();
                    throw new IOException("injected: a subcompaction's write fails");
                }
            };
        }
    }

    private StoreConfig config(WatchedIO io, int subcompactions) {
        return StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy).storageIO(io)
                .subcompactions(subcompactions).build();
    }

    private void runScript(LsmStore store, java.util.function.Function<TreeView, List<MergeTask>> script) {
        policy.script.set(script);
        store.flush();
        store.awaitMerges();
        policy.script.set(null);
    }

    /** Level 1 holds every key at version 0 in ~64 KiB tables (written unsplit: subcompactions 1 store). */
    private void loadLevel1(Path dir) {
        try (LsmStore store = LsmStore.open(dir, config(new WatchedIO(), 1))) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i, 0));
            }
            runScript(store, t -> t.level(0).runs().isEmpty() ? List.of() : List.of(MergeTask.rewrite(
                    ids(t, 0), Placement.newRun(1), OutputSpec.maxFileBytes(FILE_BYTES), "L0 -> L1")));
            assertTrue(store.stats().componentsPerLevel()[1] >= 16, store.stats().toString());
        }
    }

    /** Overwrites every third key (version 1) and deletes every seventh, into level 0. */
    private static void update(LsmStore store) {
        for (int i = 0; i < KEYS; i += 3) {
            store.put(key(i), value(i, 1));
        }
        for (int i = 0; i < KEYS; i += 7) {
            store.delete(key(i));
        }
    }

    private static byte[] expected(int i) {
        return i % 7 == 0 ? null : value(i, i % 3 == 0 ? 1 : 0);
    }

    /** Level 0 and all of level 1 rewritten into a new level-1 run. */
    private static List<MergeTask> wholeMerge(TreeView t) {
        if (t.level(0).runs().isEmpty()) {
            return List.of();
        }
        List<ComponentId> in = ids(t, 0);
        in.addAll(ids(t, 1));
        return List.of(MergeTask.rewrite(in, Placement.newRun(1), OutputSpec.maxFileBytes(FILE_BYTES), "L0+L1 -> L1"));
    }

    private static TreeMap<String, String> contents(Cursor c) {
        TreeMap<String, String> out = new TreeMap<>();
        try (c) {
            for (boolean on = c.seekToFirst(); on; on = c.next()) {
                out.put(new String(c.key(), UTF_8), new String(c.value(), UTF_8));
            }
        }
        return out;
    }

    private TreeView captureTree(LsmStore store) {
        AtomicReference<TreeView> seen = new AtomicReference<>();
        policy.script.set(t -> {
            seen.set(t);
            return List.of();
        });
        store.put(key(0), expected(0) == null ? value(0, 9) : expected(0)); // a flush to be asked about
        if (expected(0) == null) {
            store.delete(key(0));
        }
        store.flush();
        store.awaitMerges();
        policy.script.set(null);
        return seen.get();
    }

    private static void assertOneSortedRunOfDisjointTables(TreeView t) {
        assertEquals(1, t.level(1).runs().size(), "level 1 is one run");
        RunView run = t.level(1).runs().get(0);
        List<? extends ComponentView> cs = run.components();
        for (int i = 1; i < cs.size(); i++) {
            assertTrue(Arrays.compareUnsigned(cs.get(i - 1).maxKey(), cs.get(i).minKey()) < 0,
                    "table " + (i - 1) + " ends below table " + i + "'s start");
        }
    }

    @Test
    void aSplitMergeRunsOnTheBlockThreadsAndKeepsWhatTheWholeMergeKeeps() throws Exception {
        TreeMap<String, String> whole;
        TreeMap<String, String> wholeAtSnapshot;
        Path wholeDir = tmp.resolve("whole");
        loadLevel1(wholeDir);
        WatchedIO wholeIo = new WatchedIO();
        try (LsmStore store = LsmStore.open(wholeDir, config(wholeIo, 1))) {
            Snapshot snap = store.snapshot();
            update(store);
            runScript(store, SubcompactionSlowTest::wholeMerge);
            assertTrue(wholeIo.mergeWriters.stream().noneMatch(n -> n.startsWith("strata-block-")),
                    "subcompactions 1: not split " + wholeIo.mergeWriters);
            whole = contents(store.scan(null, null));
            wholeAtSnapshot = contents(snap.scan(null, null));
            snap.close();
        }

        Path dir = tmp.resolve("split");
        loadLevel1(dir);
        WatchedIO io = new WatchedIO();
        try (LsmStore store = LsmStore.open(dir, config(io, 4))) {
            Snapshot snap = store.snapshot();
            update(store);
            runScript(store, SubcompactionSlowTest::wholeMerge);
            assertTrue(io.mergeWriters.stream().anyMatch(n -> n.startsWith("strata-block-")),
                    "pieces ran on the block-merge threads: " + io.mergeWriters);
            assertEquals(0, store.stats().componentsPerLevel()[0], "level 0 was merged");
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(expected(i), store.get(key(i)), "key " + i);
                assertArrayEquals(value(i, 0), snap.get(key(i)), "key " + i + " at the snapshot");
            }
            assertEquals(whole, contents(store.scan(null, null)));
            assertEquals(wholeAtSnapshot, contents(snap.scan(null, null)));
            snap.close();
            assertOneSortedRunOfDisjointTables(captureTree(store));
        }
        try (LsmStore reopened = LsmStore.open(dir, config(new WatchedIO(), 4))) {
            assertEquals(whole, contents(reopened.scan(null, null)), "the same after a reopen");
        }
    }

    @Test
    void aFailedPieceInstallsNothingAndLeavesNoFile() throws Exception {
        Path dir = tmp.resolve("db");
        loadLevel1(dir);
        WatchedIO io = new WatchedIO();
        try (LsmStore store = LsmStore.open(dir, config(io, 4))) {
            update(store);
            store.flush();
            store.awaitMerges();
            long[] before = store.stats().liveTableFileNumbers().clone();
            io.failOnBlockThread = true;
            store.put(key(1), value(1, 0)); // the same value again: a flush to decide on
            runScript(store, SubcompactionSlowTest::wholeMerge);
            io.failOnBlockThread = false;
            assertTrue(io.failures.get() > 0, "a piece on a block thread failed");
            long[] after = store.stats().liveTableFileNumbers().clone();
            assertEquals(before.length + 1, after.length, "the failed merge installed nothing (one table flushed)");
            Set<Long> live = new java.util.HashSet<>();
            for (long n : after) {
                live.add(n);
            }
            for (long n : before) {
                assertTrue(live.contains(n), "input table " + n + " is still live");
            }
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(after.length, files.filter(p -> p.getFileName().toString().endsWith(".sst")).count(),
                        "every piece's outputs were deleted");
            }
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(expected(i), store.get(key(i)), "key " + i);
            }
        }
    }

    @Test
    void aCloseUnderThePiecesLeavesTheTablesBeforeTheMerge() throws Exception {
        Path dir = tmp.resolve("db");
        loadLevel1(dir);
        int tables;
        try (LsmStore store = LsmStore.open(dir, config(new WatchedIO(), 4))) {
            update(store);
            store.flush();
            store.awaitMerges();
            tables = store.stats().componentCount();
        }
        GatedMergeIO gated = new GatedMergeIO();
        LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy)
                .storageIO(gated).subcompactions(4).build());
        policy.script.set(SubcompactionSlowTest::wholeMerge);
        store.put(key(1), value(1, 0)); // the same value again: a flush to decide on
        store.flush();
        assertTrue(gated.mergeWriting.await(30, TimeUnit.SECONDS), "the pieces started and are held");
        CompletableFuture<Void> close = CompletableFuture.runAsync(store::close);
        Thread.sleep(50);
        gated.release();
        close.get(60, TimeUnit.SECONDS);
        policy.script.set(null);
        try (LsmStore reopened = LsmStore.open(dir, config(new WatchedIO(), 4))) {
            assertEquals(tables + 1, reopened.stats().componentCount(),
                    "the merge was stopped or ended: the store opens with the tables before it (and the flush)");
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(expected(i), reopened.get(key(i)), "key " + i);
            }
            long[] live = reopened.stats().liveTableFileNumbers();
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(live.length, files.filter(p -> p.getFileName().toString().endsWith(".sst")).count(),
                        "no piece's output is left behind");
            }
        }
    }
}
