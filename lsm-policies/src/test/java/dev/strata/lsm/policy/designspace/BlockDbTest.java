package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.BlockCompactionStats;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policies.StoreContents;
import dev.strata.lsm.policy.sim.KeyRangeSimulator;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * The {@code blockdb} preset (seed 001 on {@code rr}): a store on it agrees with a map
 * (random puts, deletes and overwrites, a snapshot, a reopen), its parameters, and in the
 * key-range simulator it issues block compactions and writes less than {@code rr} (the
 * direction of BL4). Forced block compactions under a model (BL1) are in lsm-core's
 * {@code ReuseBlocksTest}: at this test's scale rr's round-robin cursors keep the levels'
 * key ranges apart (every merge below level 0 is a move or a one-file rewrite), so the
 * engine run here may see no overlapped child at all.
 */
@SlowTest
class BlockDbTest {

    @Test
    void aStoreOnBlockDbAgreesWithAMap(@TempDir Path dir) {
        agreesWithAMap(dir, StoreConfig.builder());
    }

    /**
     * The same with lz4 pages and prefix-compressed leaves (tables block-compacted in place keep
     * their codec): compressible values, so the tables are compressed, some of them are merged
     * in place, and the store agrees with the map before and after a reopen. Slow lane (about
     * 40 s on a loaded 2-core machine).
     */
    @Test
    @dev.strata.lsm.testkit.SlowTest
    void aStoreOnBlockDbWithLz4AgreesWithAMap(@TempDir Path dir) {
        StoreStats stats = agreesWithAMap(dir, StoreConfig.builder()
                .compression(dev.strata.lsm.Compression.LZ4)
                .leafEncoding(dev.strata.lsm.LeafEncoding.PREFIX));
        assertTrue(stats.compressionRatio() > 1.3, "the tables are lz4-compressed: " + stats);
        assertTrue(stats.blockCompaction().mergedInPlace() > 0, "compressed tables were merged in place: " + stats);
    }

    private static StoreStats agreesWithAMap(Path dir, StoreConfig.Builder builder) {
        long seed = TestSeed.orDefault(7);
        Random random = new Random(seed);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        TreeMap<byte[], byte[]> atSnapshot = null;
        // 20,000 operations over 5,000 keys into 32 KiB memtables: the flushes and merges of
        // 40,000 over 10,000 into 64 KiB, with half the bytes.
        int ops = 20_000;
        StoreConfig config = builder.memtableBytes(32 << 10).blockCacheBytes(1 << 20)
                .mergePolicy("blockdb", Map.of("size-ratio", "4", "dynamic-level-bytes", "false")).build();
        boolean compressible = config.compression() != dev.strata.lsm.Compression.NONE;
        StoreStats result;
        try (LsmStore store = LsmStore.open(dir, config)) {
            Snapshot snapshot = null;
            for (int i = 0; i < ops; i++) {
                if (i == ops / 2) {
                    snapshot = store.snapshot();
                    atSnapshot = new TreeMap<>(model);
                }
                byte[] key = ByteBuffer.allocate(8).putLong(random.nextInt(ops / 4) * 2654435761L).array();
                if (random.nextInt(10) == 0) {
                    store.delete(key);
                    model.remove(key);
                } else {
                    byte[] value = new byte[100 + random.nextInt(400)];
                    random.nextBytes(value);
                    if (compressible) {
                        // Runs of repeated text between random bytes: values compress to about half.
                        for (int b = 0; b < value.length; b++) {
                            if (b % 32 >= 12) {
                                value[b] = (byte) ('a' + b % 13);
                            }
                        }
                    }
                    store.put(key, value);
                    model.put(key, value);
                }
            }
            store.awaitMerges();
            StoreStats stats = store.stats();
            BlockCompactionStats block = stats.blockCompaction();
            assertEquals(0, stats.policyErrors(), "policy errors (seed " + seed + "): " + stats);
            assertTrue(stats.componentsPerLevel().length >= 3, "a level 2 exists: " + stats);
            assertEquals(block.mergedInPlace() > 0, block.inPlaceBytesWritten() > 0, block.toString());
            StoreContents.assertSame(model, store, "seed " + seed);
            for (Map.Entry<byte[], byte[]> e : atSnapshot.entrySet()) {
                assertArrayEquals(e.getValue(), snapshot.get(e.getKey()), "snapshot, seed " + seed);
            }
            snapshot.close();
            result = store.stats();
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            StoreContents.assertSame(model, store, "seed " + seed);
            assertEquals(0, store.stats().policyErrors());
        }
        return result;
    }

    @Test
    void badBlockParametersNameTheProblem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("blockdb",
                Map.of("max-dirty-ratio", "0.5,1.5")));
        assertTrue(e.getMessage().contains("max-dirty-ratio"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("rr",
                Map.of("max-file-factor", "0.5")));
        assertTrue(e.getMessage().contains("max-file-factor"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("rr",
                Map.of("block-compaction", "maybe")));
        assertTrue(e.getMessage().contains("block-compaction"), e.getMessage());
    }

    /** Two level-1 files, one of them mostly dead pages (logical 1 MiB of a 4 MiB file); level 2 beneath. */
    private static dev.strata.lsm.policy.TreeView treeWithGarbage() {
        long mib = 1 << 20;
        java.util.function.BiFunction<Long, Long, dev.strata.lsm.policy.ComponentView> file = (n, physical) ->
                dev.strata.lsm.policy.ComponentView.builder(new dev.strata.lsm.policy.ComponentId(n, 0))
                        .sizeBytes(mib).physicalBytes(physical).entries(1000, 0).userBytes(mib)
                        .keyRange(new byte[] {(byte) (n * 16)}, new byte[] {(byte) (n * 16 + 8)}).seqnos(n, n)
                        .creation(n, 0).build();
        var l1 = new dev.strata.lsm.policy.LevelView(1, List.of(new dev.strata.lsm.policy.RunView(
                List.of(file.apply(1L, mib), file.apply(2L, 4 * mib)))));
        var l2 = new dev.strata.lsm.policy.LevelView(2, List.of(new dev.strata.lsm.policy.RunView(
                List.of(file.apply(3L, mib), file.apply(4L, mib), file.apply(5L, mib)))));
        return new dev.strata.lsm.policy.TreeView(List.of(new dev.strata.lsm.policy.LevelView(0, List.of()), l1, l2), 0,
                null, null);
    }

    @Test
    void aMostlyDeadFileIsRewrittenInPlaceWhenBlockCompactionIsOn() {
        var tasks = MergePolicies.create("blockdb", Map.of("target-file-bytes", "1MiB", "size-ratio", "100"))
                .pickMerges(treeWithGarbage());
        assertEquals(1, tasks.size(), tasks.toString());
        var task = tasks.get(0);
        assertEquals(List.of(new dev.strata.lsm.policy.ComponentId(2, 0)), task.inputs(), task.toString());
        assertEquals(dev.strata.lsm.policy.MergeMode.REWRITE, task.mode());
        assertEquals(1, task.placement().level());
        assertTrue(task.reason().contains("25% valid"), task.reason());
        // rr itself (block compaction off) leaves it: nothing is saturated.
        assertTrue(MergePolicies.create("rr", Map.of("target-file-bytes", "1MiB", "size-ratio", "100"))
                .pickMerges(treeWithGarbage()).isEmpty());
    }

    @Test
    void mostlyDeadNeighboursAreRewrittenTogether() {
        // Level 1: files 1..6 in key order; 2, 3 and 4 (neighbours) and 6 are mostly dead, 5 is not.
        long mib = 1 << 20;
        long[] physical = {mib, 3 * mib, 4 * mib, 2 * mib, mib, 4 * mib};
        List<dev.strata.lsm.policy.ComponentView> l1 = new java.util.ArrayList<>();
        for (int i = 0; i < physical.length; i++) {
            long n = i + 1;
            l1.add(dev.strata.lsm.policy.ComponentView.builder(new dev.strata.lsm.policy.ComponentId(n, 0))
                    .sizeBytes(mib).physicalBytes(physical[i]).entries(1000, 0).userBytes(mib)
                    .keyRange(new byte[] {(byte) (n * 16)}, new byte[] {(byte) (n * 16 + 8)}).seqnos(n, n)
                    .creation(n, 0).build());
        }
        var tree = new dev.strata.lsm.policy.TreeView(List.of(new dev.strata.lsm.policy.LevelView(0, List.of()),
                new dev.strata.lsm.policy.LevelView(1, List.of(new dev.strata.lsm.policy.RunView(l1))),
                new dev.strata.lsm.policy.LevelView(2, List.of())), 0, null, null);
        var tasks = MergePolicies.create("blockdb", Map.of("target-file-bytes", "1MiB", "size-ratio", "100"))
                .pickMerges(tree);
        assertEquals(1, tasks.size(), tasks.toString());
        var task = tasks.get(0);
        // The worst (3, 25% valid) with its neighbours below 70% (2 at 33%, 4 at 50%); not 5 (valid), nor 6 beyond it.
        assertEquals(List.of(new dev.strata.lsm.policy.ComponentId(2, 0), new dev.strata.lsm.policy.ComponentId(3, 0),
                new dev.strata.lsm.policy.ComponentId(4, 0)), task.inputs(), task.toString());
        assertEquals(dev.strata.lsm.policy.MergeMode.REWRITE, task.mode());
        assertEquals(1, task.placement().level());
        assertTrue(task.reason().contains("25% valid") && task.reason().contains("with 2 neighbours"), task.reason());
    }

    @Test
    void blockdbIsRrWithBlockCompaction() {
        Map<String, String> rr = DesignSpacePresets.values("rr");
        Map<String, String> blockdb = DesignSpacePresets.values("blockdb");
        for (String k : rr.keySet()) {
            if (!k.equals(DesignSpacePresets.BLOCK_COMPACTION)) {
                assertEquals(rr.get(k), blockdb.get(k), k);
            }
        }
        assertEquals("false", rr.get(DesignSpacePresets.BLOCK_COMPACTION));
        assertEquals("true", blockdb.get(DesignSpacePresets.BLOCK_COMPACTION));
    }

    @Test
    void inTheSimulatorBlockCompactionWritesLessThanRrWithLargeEntries() {
        // Seed 001's entries: 32-byte keys, 1 KiB values, so a 4 KiB leaf holds about 4 (B/k < a).
        double entryBytes = 1056;
        long flush = 1 << 20;
        // 400 flushes in the fast lane, 4,000 in the slow lane (BlockDbTest at multiplier 3).
        int flushes = TestScale.scaled(400);
        KeyRangeSimulator.Result rr = KeyRangeSimulator.of("rr", Map.of(), KeyRangeSimulator.Workload.inserts(),
                entryBytes, flush).run(flushes);
        long[] reuse = new long[1];
        KeyRangeSimulator.Result blockdb = KeyRangeSimulator.of("blockdb", Map.of(),
                KeyRangeSimulator.Workload.inserts(), entryBytes, flush)
                .onMerge(e -> reuse[0] += e.task().mode() == dev.strata.lsm.policy.MergeMode.REUSE_BLOCKS ? 1 : 0)
                .run(flushes);
        assertTrue(reuse[0] > 0, "block compactions were asked for");
        System.out.printf("rr WA %.2f peak SA %.3f (%s)%nblockdb WA %.2f peak SA %.3f (%s)%n", rr.waImpl(),
                rr.peakSpaceAmplification(), rr.tree(), blockdb.waImpl(), blockdb.peakSpaceAmplification(),
                blockdb.tree());
        assertTrue(blockdb.waImpl() < rr.waImpl(), "blockdb " + blockdb.waImpl() + " vs rr " + rr.waImpl());
        assertTrue(blockdb.peakSpaceAmplification() >= rr.peakSpaceAmplification(), "dead pages cost space");
    }
}
