package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policies.StoreContents;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Spooky in the engine, each layout: a store under random puts and deletes agrees with a map, across a reopen. */
class SpookyStoreTest {

    /**
     * The store's stats count Spooky's writes by kind (flush, full preemptive, dividing,
     * partitioned, intra-L0): the kinds add up to the IO layer's flush and merge bytes, and
     * Full Merge ({@code x-offset} 0) has no dividing or partitioned merges.
     */
    @ParameterizedTest(name = "x-offset {0}")
    @ValueSource(ints = {2, 0})
    void bytesWrittenAreCountedByMergeKind(int xOffset, @TempDir Path dir) {
        StoreConfig config = StoreConfig.builder().memtableBytes(32 << 10).blockCacheBytes(1 << 20)
                .mergePolicy("spooky", Map.of("size-ratio", "3", "x-offset", Integer.toString(xOffset))).build();
        Random random = new Random(TestSeed.orDefault(7));
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 40_000; i++) {
                byte[] key = ByteBuffer.allocate(8).putLong(random.nextLong()).array();
                store.put(key, new byte[56]);
            }
            store.awaitMerges();
            StoreStats s = store.stats();
            Map<String, Long> kinds = s.bytesWrittenByKind();
            assertEquals(0, s.policyErrors(), s.toString());
            assertTrue(java.util.Set.of("flush", SpookyPolicy.FULL_PREEMPTIVE, SpookyPolicy.DIVIDING,
                    SpookyPolicy.PARTITIONED, SpookyPolicy.INTRA_L0).containsAll(kinds.keySet()), kinds.toString());
            assertEquals(s.flushBytesWritten(), kinds.get("flush"), kinds.toString());
            long merges = kinds.entrySet().stream().filter(e -> !e.getKey().equals("flush"))
                    .mapToLong(Map.Entry::getValue).sum();
            assertEquals(s.mergeBytesWritten(), merges, "the merge kinds add up to the merge bytes: " + kinds);
            assertTrue(kinds.getOrDefault(SpookyPolicy.FULL_PREEMPTIVE, 0L) > 0, kinds.toString());
            if (xOffset == 0) {
                assertTrue(!kinds.containsKey(SpookyPolicy.DIVIDING) && !kinds.containsKey(SpookyPolicy.PARTITIONED),
                        "Full Merge neither divides nor partitions: " + kinds);
            } else {
                assertTrue(kinds.getOrDefault(SpookyPolicy.DIVIDING, 0L) > 0
                        && kinds.getOrDefault(SpookyPolicy.PARTITIONED, 0L) > 0, kinds.toString());
            }
        }
    }

    /** Spooky asks tools for two merge threads (seed 000 §5); no other registered policy states a preference. */
    @Test
    void spookyPrefersTwoMergeThreads() {
        for (dev.strata.lsm.policy.MergePolicyFactory f : MergePolicies.available()) {
            assertEquals(f.name().equals("spooky") ? java.util.OptionalInt.of(2) : java.util.OptionalInt.empty(),
                    f.mergeThreads(), f.name());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"leveling", "lazy-leveling", "tiering"})
    void aStoreOnSpookyAgreesWithAMapAndGrowsLevels(String layout, @TempDir Path dir) {
        long seed = TestSeed.orDefault(42);
        Random random = new Random(seed);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        StoreConfig config = StoreConfig.builder().memtableBytes(32 << 10).blockCacheBytes(1 << 20)
                .mergePolicy("spooky", Map.of("size-ratio", "3", "l0-compaction-trigger", "2",
                        "l0-slowdown-trigger", "4", "l0-stop-trigger", "6", "layout", layout))
                .build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 40_000; i++) {
                byte[] key = ByteBuffer.allocate(8).putLong(random.nextInt(8_000) * 2654435761L).array();
                if (random.nextInt(10) == 0) {
                    store.delete(key);
                    model.remove(key);
                } else {
                    byte[] value = new byte[16 + random.nextInt(48)];
                    random.nextBytes(value);
                    store.put(key, value);
                    model.put(key, value);
                }
            }
            store.awaitMerges();
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), layout + ": policy errors (seed " + seed + "): " + stats);
            assertTrue(stats.mergeCount() > 0, "merges ran: " + stats);
            assertTrue(stats.componentsPerLevel().length >= 3, "levels were added: " + stats);
            StoreContents.assertSame(model, store, "seed " + seed);
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            StoreContents.assertSame(model, store, "seed " + seed);
            assertEquals(0, store.stats().policyErrors());
        }
    }

    /**
     * The flush-as-own-file skew option (seed 000 §4.3, Fig. 11B): sequential inserts make
     * level-0 files whose key ranges overlap nothing, so they are moved down instead of merged;
     * without the option they are merged on every way down.
     */
    @Test
    void sequentialInsertsAreMovedNotMergedWithFlushAsOwnFile(@TempDir Path dir) {
        long[] mergeBytes = new long[2];
        for (int run = 0; run < 2; run++) {
            boolean option = run == 1;
            Path store = dir.resolve("run" + run);
            java.util.concurrent.atomic.AtomicInteger moves = new java.util.concurrent.atomic.AtomicInteger();
            StoreConfig config = StoreConfig.builder().memtableBytes(32 << 10).blockCacheBytes(1 << 20)
                    .mergePolicy("spooky", Map.of("size-ratio", "3", "l0-compaction-trigger", "2",
                            "l0-slowdown-trigger", "4", "l0-stop-trigger", "6", "flush-as-own-file",
                            Boolean.toString(option)))
                    .listener(new dev.strata.lsm.StoreListener() {
                        @Override
                        public void mergeStarted(String reason) {
                            if (reason.contains("flush as its own file")) {
                                moves.incrementAndGet();
                            }
                        }
                    })
                    .build();
            TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
            try (LsmStore s = LsmStore.open(store, config)) {
                for (long i = 0; i < 30_000; i++) {
                    byte[] key = ByteBuffer.allocate(8).putLong(i).array();
                    byte[] value = ("value-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    s.put(key, value);
                    model.put(key, value);
                }
                s.awaitMerges();
                StoreStats stats = s.stats();
                assertEquals(0, stats.policyErrors(), "policy errors: " + stats);
                assertTrue(stats.componentsPerLevel().length >= 3, "levels were added: " + stats);
                mergeBytes[run] = stats.mergeBytesWritten();
                System.out.printf("sequential inserts, flush-as-own-file %s: flush %,d bytes, merge %,d bytes, "
                        + "%d moves, %s%n", option, stats.flushBytesWritten(), stats.mergeBytesWritten(), moves.get(),
                        Arrays.toString(stats.componentsPerLevel()));
                assertEquals(option, moves.get() > 0, "level-0 files moved down only with the option: " + moves);
                StoreContents.assertSame(model, s, "flush-as-own-file " + option);
            }
            try (LsmStore s = LsmStore.open(store, config)) {
                StoreContents.assertSame(model, s, "flush-as-own-file " + option + " after reopen");
            }
        }
        // What is still merged with the option: the partitioned passes (a pass rewrites the last
        // level-L file with the new data in its slice) and intra-L0 merges beside full preemptive ones. How
        // many of those happen depends on when the background merges run against the inserts:
        // with prefix-compressed leaves the ratio measured 0.53 to 0.63 over runs (it was under
        // 0.6 with plain leaves), so the bound is 0.75: a saving of a quarter at least.
        assertTrue(mergeBytes[1] <= 0.75 * mergeBytes[0], "the option saves the merges out of level 0: "
                + Arrays.toString(mergeBytes));
    }

    @Test
    void badParametersNameTheProblem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("spooky",
                Map.of("l0-slowdown-trigger", "10", "l0-stop-trigger", "9")));
        assertTrue(e.getMessage().contains("l0-slowdown-trigger") && e.getMessage().contains("l0-stop-trigger"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("spooky",
                Map.of("layout", "tiered")));
        assertTrue(e.getMessage().contains("layout") && e.getMessage().contains("lazy-leveling"), e.getMessage());
    }
}
