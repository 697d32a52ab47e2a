package dev.strata.lsm.engine;

import dev.strata.lsm.BlockCompactionStats;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.SelectiveThresholds;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.Compression;
import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link MergeMode#REUSE_BLOCKS} in the engine (block compaction, seed 001): a narrow update
 * merged in place into the level-1 tables it overlaps keeps their files, writes a small
 * fraction of their bytes, leaves older snapshots reading the old values, and survives a
 * reopen; tasks the mode cannot run are refused as policy errors and change nothing.
 */
@SlowTest
class ReuseBlocksTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    private static final int KEYS = 20_000;
    private static final int UPDATE_FROM = 5_000;
    private static final int UPDATE_TO = 5_200;

    @TempDir
    Path dir;


    private StoreConfig config() {
        return StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy).build();
    }

    static byte[] key(int i) {
        return TestKeys.padded("key-", i, 8).getBytes(UTF_8);
    }

    static byte[] value(int i, int version) {
        return ("value-" + version + "-" + i + "-" + "v".repeat(80)).getBytes(UTF_8);
    }

    static List<ComponentId> ids(TreeView tree, int level) {
        List<ComponentId> ids = new ArrayList<>();
        tree.level(level).runs().forEach(r -> r.components().forEach(c -> ids.add(c.id())));
        return ids;
    }

    /** Level 1: one run of ~256 KiB tables holding every key at version 0; level 0 empty. */
    private LsmStore leveledStore() {
        return leveledStore(config());
    }

    private LsmStore leveledStore(StoreConfig config) {
        LsmStore store = LsmStore.open(dir, config);
        loadIntoLevel1(store, config.compression() == Compression.NONE ? 256 << 10 : COMPRESSED_CUT);
        assertTrue(store.stats().componentsPerLevel()[1] >= 4, "several level-1 tables: " + store.stats());
        return store;
    }

    /** Sets the script, flushes (so the policy is consulted), and waits for the merges it asks for. */
    private void runScript(LsmStore store, Function<TreeView, List<MergeTask>> script) {
        policy.script.set(script);
        store.flush();
        store.awaitMerges();
        policy.script.set(null);
    }

    /** Puts every key at version 0 and rewrites them from level 0 into level 1 as 256 KiB tables. */
    private void loadIntoLevel1(LsmStore store) {
        loadIntoLevel1(store, 256 << 10);
    }

    /** As {@link #loadIntoLevel1(LsmStore)}, cutting tables at {@code cut} bytes (stored). */
    private void loadIntoLevel1(LsmStore store, long cut) {
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i, 0));
        }
        runScript(store, tree -> tree.level(0).runs().isEmpty() ? List.of() : List.of(MergeTask.rewrite(
                ids(tree, 0), Placement.newRun(1), OutputSpec.maxFileBytes(cut), "L0 -> L1")));
    }

    /** Compressed, the values take about a sixth to a tenth of their size: cut level 1 finer. */
    private static final long COMPRESSED_CUT = 32 << 10;

    /** The block compaction of level 0 into the level-1 tables that overlap it. */
    private static List<MergeTask> reuse(TreeView tree) {
        return reuse(tree, null);
    }

    /** As {@link #reuse(TreeView)}, with selective thresholds (rewritten children cut at 256 KiB). */
    private static List<MergeTask> reuse(TreeView tree, SelectiveThresholds selective) {
        if (tree.level(0).runs().isEmpty()) {
            return List.of();
        }
        List<ComponentView> parents = new ArrayList<>();
        tree.level(0).runs().forEach(r -> parents.addAll(r.components()));
        List<ComponentId> inputs = new ArrayList<>(parents.stream().map(ComponentView::id).toList());
        ComponentId anchor = null;
        for (ComponentView child : tree.level(1).runs().get(0).components()) {
            if (parents.stream().anyMatch(child::overlaps)) {
                inputs.add(child.id());
                anchor = child.id();
            }
        }
        return List.of(selective == null ? new MergeTask(inputs, Placement.intoRunOf(1, anchor), OutputSpec.singleFile(),
                MergeMode.REUSE_BLOCKS, 0, "block compaction")
                : MergeTask.reuseBlocks(inputs, Placement.intoRunOf(1, anchor), OutputSpec.maxFileBytes(256 << 10),
                selective, "selective compaction"));
    }

    private static long[] fileNumbers(StoreStats stats) {
        long[] n = stats.liveTableFileNumbers().clone();
        Arrays.sort(n);
        return n;
    }

    private static void assertValues(LsmStore store, int updatedVersion) {
        for (int i = 0; i < KEYS; i++) {
            int version = i >= UPDATE_FROM && i < UPDATE_TO ? updatedVersion : 0;
            assertArrayEquals(value(i, version), store.get(key(i)), "key " + i);
        }
    }

    @Test
    void aNarrowUpdateIsMergedInPlaceIntoTheTablesItOverlaps() {
        long childBytes;
        long[] before;
        try (LsmStore store = leveledStore()) {
            before = fileNumbers(store.stats());
            childBytes = store.stats().tableFileBytes();
            try (dev.strata.lsm.Snapshot old = store.snapshot()) {
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, 1));
                }
                store.delete(key(UPDATE_FROM + 1));
                long mergeReadBefore = store.stats().io().bytesRead(IoPurpose.MERGE);
                long mergeWrittenBefore = store.stats().mergeBytesWritten();
                runScript(store, ReuseBlocksTest::reuse);

                StoreStats stats = store.stats();
                assertEquals(0, stats.policyErrors(), "policy errors: " + stats);
                assertEquals(0, stats.componentsPerLevel()[0], "level 0 merged away");
                assertArrayEquals(before, fileNumbers(stats), "the level-1 tables keep their files");
                long written = stats.mergeBytesWritten() - mergeWrittenBefore;
                assertTrue(written > 0, "dirty leaves were written");
                assertTrue(written < childBytes / 4,
                        "a narrow update rewrites a small part of the level: " + written + " of " + childBytes);
                long read = stats.io().bytesRead(IoPurpose.MERGE) - mergeReadBefore;
                assertTrue(read < childBytes / 2, "clean leaves are not read: " + read + " of " + childBytes);

                // The snapshot taken before the update still reads version 0 everywhere.
                for (int i = UPDATE_FROM - 10; i < UPDATE_TO + 10; i++) {
                    assertArrayEquals(value(i, 0), old.get(key(i)), "snapshot key " + i);
                }
            }
            assertNull(store.get(key(UPDATE_FROM + 1)), "the delete was merged in");
            store.put(key(UPDATE_FROM + 1), value(UPDATE_FROM + 1, 1));
            assertValues(store, 1);
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertValues(store, 1);
            long[] after = fileNumbers(store.stats());
            for (long n : before) {
                assertTrue(Arrays.binarySearch(after, n) >= 0, "reopened: table " + n + " still live");
            }
            try (var cursor = store.scan(key(0), key(KEYS))) {
                int n = 0;
                while (cursor.next()) {
                    n++;
                }
                assertEquals(KEYS, n, "a scan sees every key once");
            }
        }
    }

    /**
     * A range tombstone among a block compaction's parents covers leaves of the children
     * that no parent key lies in: merged in place, those leaves would count as clean and come
     * back. The compaction rewrites instead (with the tombstone applied), and nothing in the
     * range survives, in the level-1 tables or after a reopen.
     */
    @Test
    void aRangeTombstoneAmongTheParentsIsNeverSkippedOverByCleanLeaves() {
        int from = 2_000;
        int to = 15_000;
        try (LsmStore store = LsmStore.open(dir, config())) {
            loadIntoLevel1(store);
            long[] before = fileNumbers(store.stats());
            store.deleteRange(key(from), key(to));
            store.put(key(UPDATE_FROM), value(UPDATE_FROM, 1)); // a parent key inside the range, after the tombstone
            store.put(key(KEYS - 1), value(KEYS - 1, 1));
            runScript(store, ReuseBlocksTest::reuse);
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), "policy errors: " + stats);
            assertEquals(0, stats.componentsPerLevel()[0], "level 0 merged away");
            assertTrue(Arrays.stream(fileNumbers(stats)).noneMatch(n -> Arrays.binarySearch(before, n) >= 0),
                    "the children were rewritten, not merged in place");
            assertDeletedRange(store, from, to);
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertDeletedRange(store, from, to);
        }
    }

    private static void assertDeletedRange(LsmStore store, int from, int to) {
        for (int i = 0; i < KEYS; i += 7) {
            byte[] expected = i == KEYS - 1 || i == UPDATE_FROM ? value(i, 1) : i >= from && i < to ? null : value(i, 0);
            assertArrayEquals(expected, store.get(key(i)), "key " + i);
        }
        try (var cursor = store.scan(key(from), key(to))) {
            assertTrue(cursor.next());
            assertArrayEquals(key(UPDATE_FROM), cursor.key());
            assertTrue(!cursor.next(), "a deleted key came back");
        }
    }

    /**
     * Compressed tables are never merged in place: a block compaction into lz4 tables
     * rewrites the children it would have merged (with the level's codec), and every value
     * and the snapshot stay right.
     */
    /** Codec and leaf encoding pairs for the compressed block-compaction tests. */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> codecs() {
        return java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(Compression.LZ4, LeafEncoding.PLAIN),
                org.junit.jupiter.params.provider.Arguments.of(Compression.LZ4, LeafEncoding.PREFIX),
                org.junit.jupiter.params.provider.Arguments.of(Compression.ZSTD, LeafEncoding.PREFIX),
                org.junit.jupiter.params.provider.Arguments.of(Compression.SNAPPY, LeafEncoding.PLAIN));
    }

    /**
     * For the tests per codec: lz4 with prefix-compressed leaves in the fast lane, every pair of
     * {@link #codecs()} in the slow lane (this class at a multiplier above 1). The
     * fast lane's other codecs: {@link #aBlockCompactionAcrossCodecsKeepsEachChildsCodec()}
     * merges zstd, uncompressed and snappy parents into lz4 children.
     */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> codecsForLongTests() {
        return dev.strata.lsm.testkit.TestScale.multiplier() > 1 ? codecs()
                : java.util.stream.Stream.of(org.junit.jupiter.params.provider.Arguments.of(Compression.LZ4,
                LeafEncoding.PREFIX));
    }

    private StoreConfig compressed(Compression codec, LeafEncoding encoding) {
        return config().toBuilder().compression(codec).leafEncoding(encoding).build();
    }

    /**
     * A narrow update into compressed level-1 tables is merged in place: the files stay, their
     * codec stays (the level stays compressed), only a small share of their stored bytes is
     * written (the dirty leaves' frames, interior pages, bloom filter, page map and footer),
     * and a second round stacks another version.
     */
    @ParameterizedTest(name = "{0}, {1} leaves")
    @MethodSource("codecsForLongTests")
    void aBlockCompactionMergesCompressedTablesInPlaceKeepingTheirCodec(Compression codec, LeafEncoding encoding) {
        StoreConfig config = compressed(codec, encoding);
        long[] before;
        try (LsmStore store = LsmStore.open(dir, config)) {
            loadIntoLevel1(store, COMPRESSED_CUT);
            before = fileNumbers(store.stats());
            assertTrue(before.length >= 2, "several level-1 tables: " + store.stats());
            long levelBytes = store.stats().liveBytesByLevel()[1];
            double ratio = store.stats().compressionRatio();
            assertTrue(ratio > 1.5, "compressed: " + store.stats());
            for (int round = 1; round <= 2; round++) {
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                long inPlaceBefore = store.stats().blockCompaction().inPlaceBytesWritten();
                runScript(store, ReuseBlocksTest::reuse);
                StoreStats stats = store.stats();
                String where = codec + " round " + round;
                assertEquals(0, stats.policyErrors(), where + ": " + stats);
                assertEquals(0, stats.componentsPerLevel()[0], where + ": level 0 merged away");
                assertTrue(stats.blockCompaction().mergedInPlace() >= round, where + ": merged in place: " + stats);
                assertArrayEquals(before, fileNumbers(stats), where + ": the same files");
                long written = stats.blockCompaction().inPlaceBytesWritten() - inPlaceBefore;
                assertTrue(written > 0 && written < levelBytes / 3, where + ": " + written
                        + " bytes written in place against " + levelBytes + " stored in the level");
                assertTrue(stats.compressionRatio() > ratio * 0.9, where + ": the level stays compressed: " + stats);
                assertValues(store, round);
            }
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertValues(store, 2);
            assertArrayEquals(before, fileNumbers(store.stats()));
        }
    }

    /**
     * A merge across codecs: level 1 written with lz4, then the store reopened with zstd (its
     * flushes are zstd tables) and then with none: each block compaction merges the parents'
     * entries into the lz4 children in place, which keep lz4; every value reads back, and
     * after a reopen too.
     */
    @Test
    void aBlockCompactionAcrossCodecsKeepsEachChildsCodec() throws java.io.IOException {
        long[] before;
        try (LsmStore store = LsmStore.open(dir, compressed(Compression.LZ4, LeafEncoding.PREFIX))) {
            loadIntoLevel1(store, COMPRESSED_CUT);
            before = fileNumbers(store.stats());
        }
        Compression[] next = {Compression.ZSTD, Compression.NONE, Compression.SNAPPY};
        for (int round = 1; round <= next.length; round++) {
            try (LsmStore store = LsmStore.open(dir, compressed(next[round - 1], LeafEncoding.PLAIN))) {
                assertValues(store, round - 1);
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                runScript(store, ReuseBlocksTest::reuse);
                StoreStats stats = store.stats();
                assertEquals(0, stats.policyErrors(), "round " + round + ": " + stats);
                assertEquals(0, stats.componentsPerLevel()[0], "round " + round);
                assertTrue(stats.blockCompaction().mergedInPlace() > 0, "round " + round + ": " + stats);
                assertArrayEquals(before, fileNumbers(stats), "round " + round + ": the lz4 files merged in place");
                assertTrue(stats.compressionRatio(1) > 1.5, "round " + round + ": level 1 stays lz4: " + stats);
                assertValues(store, round);
            }
            assertTrue(lz4Footers(before), "round " + round + ": the children's newest versions are lz4, some merged in place");
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertValues(store, next.length);
        }
    }

    /**
     * Whether the newest footer of each of the files is an lz4 one (read from the files), and
     * at least one is a version merged in place.
     */
    private boolean lz4Footers(long[] files) throws java.io.IOException {
        int spanning = 0;
        for (long n : files) {
            Path path = dir.resolve(dev.strata.lsm.version.TableFiles.fileName(n));
            try (dev.strata.lsm.io.PageFile f = new dev.strata.lsm.io.FileChannelStorageIO().open(path,
                    dev.strata.lsm.io.OpenMode.READ, IoPurpose.READ)) {
                long end = java.nio.file.Files.size(path);
                dev.strata.lsm.sstable.SSTableReader r = dev.strata.lsm.sstable.SSTableReader.open(f, end - 4096, n,
                        dev.strata.lsm.cache.BlockCache.disabled());
                if (r.footer().compression() != Compression.LZ4) {
                    return false;
                }
                spanning += r.footer().spanningMap() ? 1 : 0;
            }
        }
        return spanning > 0;
    }

    @Test
    void aSecondBlockCompactionStacksAnotherVersionOnTheSameFiles() {
        long[] before;
        try (LsmStore store = leveledStore()) {
            before = fileNumbers(store.stats());
            for (int round = 1; round <= 3; round++) {
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                runScript(store, ReuseBlocksTest::reuse);
                assertEquals(0, store.stats().policyErrors(), "round " + round);
                assertValues(store, round);
            }
            assertArrayEquals(before, fileNumbers(store.stats()));
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertValues(store, 3);
        }
    }

    @Test
    void selectiveCompactionRewritesAMostlyDirtyChildAndMergesTheOthersInPlace() {
        try (LsmStore store = leveledStore()) {
            long[] before = fileNumbers(store.stats());
            // Every key of the first table (and some of the second), and one key far away.
            for (int i = 0; i < 3_000; i++) {
                store.put(key(i), value(i, 1));
            }
            store.put(key(15_000), value(15_000, 1));
            runScript(store, tree -> reuse(tree, SelectiveThresholds.middleLevel(256 << 10)));
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), "policy errors: " + stats);
            BlockCompactionStats block = stats.blockCompaction();
            assertTrue(block.rewrittenMostlyDirty() >= 1, "the first table is rewritten: " + block);
            assertTrue(block.mergedInPlace() >= 2, "the others are merged in place: " + block);
            assertEquals(0, block.rewrittenTooLarge() + block.rewrittenMostlyDead(), block.toString());
            assertTrue(block.inPlaceBytesWritten() > 0 && block.inPlaceBytesWritten() < stats.mergeBytesWritten(),
                    block.toString());
            long[] after = fileNumbers(stats);
            assertTrue(Arrays.binarySearch(after, before[0]) < 0, "the first table's file was replaced");
            assertTrue(Arrays.binarySearch(after, before[before.length - 1]) >= 0 || before.length == 0);
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i, i < 3_000 || i == 15_000 ? 1 : 0), store.get(key(i)), "key " + i);
            }
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i, i < 3_000 || i == 15_000 ? 1 : 0), store.get(key(i)), "reopened key " + i);
            }
        }
    }

    /**
     * The parents of a selective block compaction are read once: every child's plan and merge
     * takes its slice of their entries from one pass (before, each child's plan and merge read
     * its slice of the parents again, so they were read about twice).
     */
    @Test
    void aSelectiveBlockCompactionReadsItsParentsOnce() throws Exception {
        java.util.Map<Path, Long> parentReads = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.Map<Path, Long> parentSizes = new java.util.concurrent.ConcurrentHashMap<>();
        dev.strata.lsm.io.StorageIO io = new dev.strata.lsm.io.ForwardingStorageIO(
                new dev.strata.lsm.io.FileChannelStorageIO()) {
            @Override
            public dev.strata.lsm.io.PageFile open(Path path, dev.strata.lsm.io.OpenMode mode, IoPurpose purpose)
                    throws java.io.IOException {
                dev.strata.lsm.io.PageFile f = super.open(path, mode, purpose);
                if (mode != dev.strata.lsm.io.OpenMode.READ || purpose != IoPurpose.MERGE) {
                    return f;
                }
                // A merge's read-only inputs; the children of a block compaction are opened to be written.
                parentSizes.put(path, f.size());
                return new ForwardingPageFile(f) {
                    @Override
                    public void readFully(java.nio.ByteBuffer dst, long position) throws java.io.IOException {
                        parentReads.merge(path, (long) dst.remaining(), Long::sum);
                        super.readFully(dst, position);
                    }
                };
            }
        };
        StoreConfig config = StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy)
                .storageIO(io).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            loadIntoLevel1(store);
            // One key in a hundred: every level-1 table is a child, and each is merged in place.
            for (int i = 0; i < KEYS; i += 100) {
                store.put(key(i), value(i, 1));
            }
            parentReads.clear();
            runScript(store, tree -> reuse(tree, SelectiveThresholds.middleLevel(256 << 10)));
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), "policy errors: " + stats);
            BlockCompactionStats block = stats.blockCompaction();
            assertTrue(block.mergedInPlace() >= 4, "the children are merged in place: " + block);
            assertEquals(1, parentReads.size(), "one parent table was read: " + parentReads);
            Path parent = parentReads.keySet().iterator().next();
            long read = parentReads.get(parent);
            // Once: a merge reads its inputs' leaves through a read-ahead window
            // (SSTableReader.openForScan), which also spans the interior pages the scan's descent
            // read alone, so a few pages may be read twice; a parent read per child would be 4x.
            assertTrue(read > 0 && read < 2 * parentSizes.get(parent), "the parent's " + parentSizes.get(parent)
                    + " bytes are read about once: " + read + " bytes read");
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i, i % 100 == 0 ? 1 : 0), store.get(key(i)), "key " + i);
            }
        }
    }

    /**
     * BL1: random puts, deletes and overwrites (keys inside, between and beyond the level-1
     * tables), each round flushed and block-compacted into level 1 (in place, or selectively);
     * every read and scan equals a map, a snapshot taken midway reads its time's map, and so
     * does a reopened store.
     */
    @Test
    void randomOperationsWithForcedBlockCompactionsAgreeWithAModel() {
        randomOperationsAgreeWithAModel(config());
    }

    /** The model check with compressed tables merged in place again and again (many spanning page maps). */
    @ParameterizedTest(name = "{0}, {1} leaves")
    @MethodSource("codecsForLongTests")
    void randomOperationsWithBlockCompactionsOfCompressedTablesAgreeWithAModel(Compression codec,
                                                                              LeafEncoding encoding) {
        randomOperationsAgreeWithAModel(compressed(codec, encoding));
    }

    private void randomOperationsAgreeWithAModel(StoreConfig config) {
        long seed = TestSeed.orDefault(11);
        java.util.Random random = new java.util.Random(seed);
        java.util.TreeMap<byte[], byte[]> model = new java.util.TreeMap<>(Arrays::compareUnsigned);
        for (int i = 0; i < KEYS; i++) {
            model.put(key(i), value(i, 0));
        }
        java.util.TreeMap<byte[], byte[]> atSnapshot = null;
        try (LsmStore store = leveledStore(config)) {
            dev.strata.lsm.Snapshot snapshot = null;
            for (int round = 1; round <= 8; round++) {
                if (round == 5) {
                    snapshot = store.snapshot();
                    atSnapshot = new java.util.TreeMap<>(model);
                }
                int center = random.nextInt(KEYS + 2_000);
                for (int op = 0; op < 400; op++) {
                    byte[] k = key(Math.max(0, center + (int) (random.nextGaussian() * 300)));
                    if (random.nextInt(8) == 0) {
                        store.delete(k);
                        model.remove(k);
                    } else {
                        byte[] v = new byte[20 + random.nextInt(200)];
                        random.nextBytes(v);
                        store.put(k, v);
                        model.put(k, v);
                    }
                }
                SelectiveThresholds selective = round % 2 == 0 ? SelectiveThresholds.middleLevel(256 << 10) : null;
                runScript(store, tree -> reuse(tree, selective));
                assertEquals(0, store.stats().policyErrors(), "round " + round + ", seed " + seed);
                assertEquals(0, store.stats().componentsPerLevel()[0], "round " + round);
                assertSame(model, store, "round " + round + ", seed " + seed);
            }
            assertTrue(store.stats().blockCompaction().mergedInPlace() >= 8, store.stats().blockCompaction().toString());
            for (java.util.Map.Entry<byte[], byte[]> e : atSnapshot.entrySet()) {
                assertArrayEquals(e.getValue(), snapshot.get(e.getKey()), "snapshot, seed " + seed);
            }
            snapshot.close();
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertSame(model, store, "reopened, seed " + seed);
        }
    }

    private static void assertSame(java.util.TreeMap<byte[], byte[]> model, LsmStore store, String where) {
        for (java.util.Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), store.get(e.getKey()), where);
        }
        try (dev.strata.lsm.Cursor c = store.scan(null, null)) {
            for (java.util.Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertTrue(c.next(), where);
                assertArrayEquals(e.getKey(), c.key(), where);
                assertArrayEquals(e.getValue(), c.value(), where);
            }
            assertTrue(!c.next(), where);
        }
    }

    /**
     * Page liveness: pages of earlier versions are punched out once no live version
     * references them, never while an open cursor still reads them. The storage here punches by
     * writing zeros, so a live page punched by mistake fails its checksum on the next read.
     */
    @Test
    void deadPagesArePunchedOnlyWhenNoLiveVersionReadsThem() throws Exception {
        ZeroPunchingStorageIO io = new ZeroPunchingStorageIO(new dev.strata.lsm.io.FileChannelStorageIO());
        // No block cache: every read goes to the file, so a wrongly punched page is seen.
        StoreConfig config = StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy)
                .blockCacheBytes(0).storageIO(io).build();
        LsmStore store = LsmStore.open(dir, config);
        try {
            loadIntoLevel1(store);
            // An open cursor pins the current version (a snapshot does not: merges keep the entries
            // it needs in the new versions), so the pages of its tables must stay readable.
            dev.strata.lsm.Cursor pinned = store.scan(null, null);
            for (int round = 1; round <= 3; round++) {
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                runScript(store, ReuseBlocksTest::reuse);
            }
            assertEquals(0, store.stats().policyErrors());
            int seen = 0;
            while (pinned.next()) {
                assertArrayEquals(value(seen, 0), pinned.value(), "pinned cursor, key " + seen);
                seen++;
            }
            assertEquals(KEYS, seen);
            long punchedWhilePinned = io.punched.get();
            pinned.close();
            store.put(key(0), value(0, 0)); // a flush and a version change: the sweep runs
            store.flush();
            store.awaitMerges();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (io.punched.get() == punchedWhilePinned && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(io.punched.get() > punchedWhilePinned, "pages punched once the snapshot closed: "
                    + io.punched.get());
            assertEquals(io.punched.get(), store.stats().blockCompaction().bytesPunched(), "each page punched once");
            // The policy sees the punched pages gone: a file's physical bytes are its length less its holes.
            java.util.concurrent.atomic.AtomicReference<TreeView> view = new java.util.concurrent.atomic.AtomicReference<>();
            store.put(key(1), value(1, 0));
            runScript(store, tree -> {
                view.set(tree);
                return List.of();
            });
            java.util.Map<Long, Long> physical = new java.util.HashMap<>();
            view.get().level(1).runs().forEach(r -> r.components().forEach(
                    c -> physical.put(c.id().fileNumber(), c.physicalBytes())));
            long lengths = 0;
            for (long n : physical.keySet()) {
                lengths += java.nio.file.Files.size(dir.resolve(dev.strata.lsm.version.TableFiles.fileName(n)));
            }
            assertEquals(lengths - io.punched.get(), physical.values().stream().mapToLong(Long::longValue).sum(),
                    "level 1's files on disk: their lengths less the punched pages");
            // The store reports the same per level, beside the bytes the live versions reference.
            StoreStats stats = store.stats();
            assertEquals(lengths - io.punched.get(), stats.physicalBytesByLevel()[1], "level 1's physical bytes");
            assertEquals(view.get().level(1).runs().stream().flatMap(r -> r.components().stream())
                    .mapToLong(c -> c.sizeBytes()).sum(), stats.liveBytesByLevel()[1], "level 1's live bytes");
            assertEquals(stats.liveComponentBytes(), java.util.Arrays.stream(stats.liveBytesByLevel()).sum());
            assertValues(store, 3);
            try (var c = store.scan(null, null)) {
                int n = 0;
                while (c.next()) {
                    n++;
                }
                assertEquals(KEYS, n);
            }
            assertEquals(io.distinctPunchedBytes(), io.punched.get(), "no page punched twice");

            assertValues(store, 3);
        } finally {
            store.close();
        }
        try (LsmStore reopened = LsmStore.open(dir, config)) {
            assertValues(reopened, 3);
        }
    }

    /**
     * Page liveness with compressed tables: once no live version reads an earlier version's
     * frames, whole pages holding nothing but dead frames are punched out, never a page a live
     * frame, page map or footer touches. The storage punches by writing zeros and there is no
     * block cache, so a live frame punched by mistake fails its checksum on the next read.
     */
    @ParameterizedTest(name = "{0}, {1} leaves")
    @MethodSource("codecsForLongTests")
    void deadFramesOfCompressedTablesArePunchedByWholePagesOnly(Compression codec, LeafEncoding encoding)
            throws Exception {
        ZeroPunchingStorageIO io = new ZeroPunchingStorageIO(new dev.strata.lsm.io.FileChannelStorageIO());
        StoreConfig config = compressed(codec, encoding).toBuilder().blockCacheBytes(0).storageIO(io).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            loadIntoLevel1(store, COMPRESSED_CUT);
            for (int round = 1; round <= 3; round++) {
                long punchedBefore = io.punched.get();
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                runScript(store, ReuseBlocksTest::reuse);
                // A flush and a version change: the sweep runs (a key the next round's update covers).
                store.put(key(UPDATE_FROM), value(UPDATE_FROM, round));
                store.flush();
                store.awaitMerges();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (io.punched.get() == punchedBefore && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                String where = codec + " round " + round;
                assertEquals(0, store.stats().policyErrors(), where);
                assertTrue(io.punched.get() > punchedBefore, where + ": dead frames punched");
                assertEquals(0, io.punched.get() % 4096, where + ": whole 4 KiB blocks only");
                assertEquals(io.distinctPunchedBytes(), io.punched.get(), where + ": no page punched twice");
                assertValues(store, round);
                try (var c = store.scan(null, null)) {
                    int n = 0;
                    while (c.next()) {
                        n++;
                    }
                    assertEquals(KEYS, n, where);
                }
            }
            StoreStats stats = store.stats();
            assertTrue(stats.physicalBytesByLevel()[1] < java.util.Arrays.stream(fileNumbers(stats)).map(n -> {
                try {
                    return java.nio.file.Files.size(dir.resolve(dev.strata.lsm.version.TableFiles.fileName(n)));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).sum(), "the holes count: " + stats);
        }
        try (LsmStore reopened = LsmStore.open(dir, config)) {
            assertValues(reopened, 3);
        }
    }

    /**
     * A checkpoint hard-links the level-1 tables: block compaction must then neither append to
     * them nor punch their pages (the checkpoint reads those bytes), so the children it would
     * merge in place are rewritten into new files, and the checkpoint reads every key after
     * the source's merges and sweeps.
     */
    @Test
    void filesSharedWithACheckpointAreRewrittenNotMergedInPlaceOrPunched() throws Exception {
        ZeroPunchingStorageIO io = new ZeroPunchingStorageIO(new dev.strata.lsm.io.FileChannelStorageIO());
        StoreConfig config = StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy)
                .blockCacheBytes(0).storageIO(io).build();
        Path checkpoint = dir.resolveSibling(dir.getFileName() + "-checkpoint");
        long[] linked;
        try (LsmStore store = LsmStore.open(dir, config)) {
            loadIntoLevel1(store);
            linked = fileNumbers(store.stats());
            store.checkpoint(checkpoint);
            for (int round = 1; round <= 3; round++) {
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                runScript(store, ReuseBlocksTest::reuse);
            }
            store.put(key(0), value(0, 0)); // one more version change: the sweep runs
            store.flush();
            store.awaitMerges();
            assertEquals(0, store.stats().policyErrors());
            assertValues(store, 3);
            for (long n : linked) {
                assertEquals(0, io.punchedBytes(dir.resolve(dev.strata.lsm.version.TableFiles.fileName(n))),
                        "pages of table " + n + ", shared with the checkpoint, were punched");
            }
            long[] now = fileNumbers(store.stats());
            int kept = 0;
            for (long n : linked) {
                kept += Arrays.binarySearch(now, n) >= 0 ? 1 : 0;
            }
            assertTrue(kept < linked.length, "the children the updates overlap were rewritten into new files");
        }
        StoreConfig plain = StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy)
                .blockCacheBytes(0).build();
        try (LsmStore cp = LsmStore.open(checkpoint, plain)) {
            assertValues(cp, 0);
        } finally {
            try (var files = java.nio.file.Files.list(checkpoint)) {
                for (Path f : files.toList()) {
                    java.nio.file.Files.delete(f);
                }
            }
            java.nio.file.Files.delete(checkpoint);
        }
    }

    /**
     * A file merged in place, swept, and merged in place again: each sweep punches only pages
     * not punched before, so each dead page is punched and counted once, and the policy sees
     * every file's length less its holes.
     */
    @Test
    void pagesPunchedBeforeAreNotPunchedOrCountedAgain() throws Exception {
        ZeroPunchingStorageIO io = new ZeroPunchingStorageIO(new dev.strata.lsm.io.FileChannelStorageIO());
        StoreConfig config = StoreConfig.builder().memtableBytes(4 << 20).mergePolicy(policy)
                .storageIO(io).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            loadIntoLevel1(store);
            for (int round = 1; round <= 3; round++) {
                long punchedBefore = io.punched.get();
                for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                    store.put(key(i), value(i, round));
                }
                runScript(store, ReuseBlocksTest::reuse);
                store.put(key(UPDATE_FROM), value(UPDATE_FROM, round)); // a flush and a version change: the sweep runs
                store.flush();
                store.awaitMerges();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (io.punched.get() == punchedBefore && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                String where = "round " + round;
                assertEquals(0, store.stats().policyErrors(), where);
                assertTrue(io.punched.get() > punchedBefore, where + ": the merge's dead pages are punched");
                assertEquals(io.distinctPunchedBytes(), io.punched.get(), where + ": no page punched twice");
                assertEquals(io.distinctPunchedBytes(), store.stats().blockCompaction().bytesPunched(),
                        where + ": bytes punched, each page once");
                java.util.concurrent.atomic.AtomicReference<TreeView> view = new java.util.concurrent.atomic.AtomicReference<>();
                store.put(key(UPDATE_FROM), value(UPDATE_FROM, round)); // the policy is asked after a flush
                runScript(store, tree -> {
                    view.set(tree);
                    return List.of();
                });
                for (var run : view.get().level(1).runs()) {
                    for (ComponentView c : run.components()) {
                        java.nio.file.Path file = dir.resolve(dev.strata.lsm.version.TableFiles.fileName(c.id().fileNumber()));
                        assertEquals(java.nio.file.Files.size(file) - io.punchedBytes(file), c.physicalBytes(),
                                where + ": physical bytes of " + file.getFileName() + ", its length less its holes");
                    }
                }
                assertValues(store, round);
            }
        }
    }

    @Test
    void reuseBlocksWithoutATargetTableIsRefused() {
        try (LsmStore store = leveledStore()) {
            for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                store.put(key(i), value(i, 1));
            }
            long[] before = fileNumbers(store.stats());
            // Only level-0 inputs: nothing in the target run to merge into.
            runScript(store, tree -> tree.level(0).runs().isEmpty() ? List.of() : List.of(new MergeTask(ids(tree, 0),
                    Placement.intoRunOf(1, ids(tree, 1).get(0)), OutputSpec.singleFile(), MergeMode.REUSE_BLOCKS, 0,
                    "no children")));
            StoreStats stats = store.stats();
            assertEquals(1, stats.policyErrors(), "refused: " + stats);
            assertEquals(1, stats.componentsPerLevel()[0], "nothing changed");
            assertTrue(fileNumbers(stats).length == before.length + 1, "only the flush added a table");
            assertValues(store, 1);
        }
    }

    @Test
    void reuseBlocksIntoANewRunIsRefused() {
        try (LsmStore store = leveledStore()) {
            for (int i = UPDATE_FROM; i < UPDATE_TO; i++) {
                store.put(key(i), value(i, 1));
            }
            long written = store.stats().mergeBytesWritten();
            runScript(store, tree -> tree.level(0).runs().isEmpty() ? List.of() : List.of(new MergeTask(
                    List.of(ids(tree, 0).get(0), ids(tree, 1).get(0)), Placement.newRun(2), OutputSpec.singleFile(),
                    MergeMode.REUSE_BLOCKS, 0, "new run")));
            StoreStats stats = store.stats();
            assertEquals(1, stats.policyErrors(), "refused: " + stats);
            assertEquals(written, stats.mergeBytesWritten(), "nothing written");
            assertValues(store, 1);
        }
    }

    @Test
    void reuseBlocksThatSkipsAnOverlappedTableIsRefused() {
        try (LsmStore store = leveledStore()) {
            // Updates spanning two level-1 tables, but only one of them named as a child: the
            // other would hold older versions of keys that now sit in a newer version below it.
            for (int i = 0; i < KEYS; i += 97) {
                store.put(key(i), value(i, 1));
            }
            long written = store.stats().mergeBytesWritten();
            runScript(store, tree -> {
                if (tree.level(0).runs().isEmpty()) {
                    return List.of();
                }
                List<ComponentId> inputs = new ArrayList<>(ids(tree, 0));
                ComponentId first = ids(tree, 1).get(0);
                inputs.add(first);
                return List.of(new MergeTask(inputs, Placement.intoRunOf(1, first), OutputSpec.singleFile(),
                        MergeMode.REUSE_BLOCKS, 0, "partial"));
            });
            StoreStats stats = store.stats();
            assertEquals(1, stats.policyErrors(), "refused: " + stats);
            assertEquals(written, stats.mergeBytesWritten(), "nothing written");
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i, i % 97 == 0 ? 1 : 0), store.get(key(i)), "key " + i);
            }
        }
    }
}
