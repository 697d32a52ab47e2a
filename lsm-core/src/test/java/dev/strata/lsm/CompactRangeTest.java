package dev.strata.lsm;

import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LsmStore#compactRange}: the default plan rewrites the components overlapping the range
 * (and every component overlapping those) into the deepest level they occupy, returns when done,
 * and keeps every key's value; {@link LsmStore#approximateSize} from the tables' fences.
 */
class CompactRangeTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    /** A store whose policy never merges by itself: every component stays where its flush put it. */
    private LsmStore openNoMerge() {
        return LsmStore.open(dir, StoreConfig.builder().memtableBytes(1 << 20).mergePolicy("no-merge", Map.of()).build());
    }

    /** Four flushes of overlapping keys, with overwrites and deletes; returns the model. */
    private static TreeMap<Integer, byte[]> load(LsmStore store) {
        TreeMap<Integer, byte[]> model = new TreeMap<>();
        for (int round = 0; round < 4; round++) {
            for (int i = round; i < 4000; i += 2) {
                byte[] v = ("v" + round + "-" + i).getBytes();
                store.put(key(i), v);
                model.put(i, v);
            }
            for (int i = round * 7; i < 4000; i += 97) {
                store.delete(key(i));
                model.remove(i);
            }
            store.flush();
        }
        return model;
    }

    private static void check(LsmStore store, TreeMap<Integer, byte[]> model) {
        try (Cursor c = store.scan(null, null)) {
            for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
                assertTrue(c.next(), "missing " + e.getKey());
                assertArrayEquals(key(e.getKey()), c.key());
                assertArrayEquals(e.getValue(), c.value());
            }
            assertFalse(c.next());
        }
    }

    private static List<Component> components(LsmStore store) {
        Version v = TestAccess.engine(store).currentVersion();
        return v.components();
    }

    @Test
    void compactingEverythingLeavesOneRunWithoutTombstones() {
        try (LsmStore store = openNoMerge()) {
            TreeMap<Integer, byte[]> model = load(store);
            assertEquals(4, components(store).size());
            long before = store.stats().mergeCount();
            store.compactRange(null, null);
            assertTrue(store.stats().mergeCount() > before, "no merge ran");
            List<Component> after = components(store);
            assertEquals(1, after.size(), "components after a full compaction: " + after);
            assertEquals(0, after.get(0).meta().tombstoneCount(), "a full compaction keeps tombstones");
            check(store, model);
        }
    }

    @Test
    void compactingARangeMergesWhatOverlapsItAndKeepsTheRest() {
        try (LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(1 << 20)
                .mergePolicy("no-merge", Map.of()).build())) {
            TreeMap<Integer, byte[]> model = new TreeMap<>();
            // Three flushes of disjoint key ranges, and one that overlaps the middle one.
            int[][] ranges = {{0, 1000}, {2000, 3000}, {4000, 5000}, {2500, 2600}};
            for (int[] r : ranges) {
                for (int i = r[0]; i < r[1]; i++) {
                    byte[] v = ("v" + r[0] + "-" + i).getBytes();
                    store.put(key(i), v);
                    model.put(i, v);
                }
                store.flush();
            }
            assertEquals(4, components(store).size());
            store.compactRange(key(2550), key(2560));
            List<Component> after = components(store);
            assertEquals(3, after.size(), "only the two components holding keys 2550..2559 merge: " + after);
            check(store, model);
            // The merged component is in the deepest level the range occupied.
            Version v = TestAccess.engine(store).currentVersion();
            int deepest = v.levels().size() - 1;
            boolean found = false;
            for (Run run : v.levels().get(deepest)) {
                for (Component c : run.components()) {
                    found |= Arrays.compareUnsigned(c.meta().minKey(), key(2000)) == 0
                            && Arrays.compareUnsigned(c.meta().maxKey(), key(2999)) == 0;
                }
            }
            assertTrue(found, "no component [2000, 2999] in level " + deepest + ": " + v.levels());
            // A range holding no key merges nothing.
            long merges = store.stats().mergeCount();
            store.compactRange(key(10_000), key(20_000));
            assertEquals(merges, store.stats().mergeCount());
        }
    }

    @Test
    void compactRangeTakesTheMemtableAndWorksWithEveryPolicyOfLsmCore() {
        for (String policy : List.of("size-tiered", "no-merge")) {
            Path d = dir.resolve(policy);
            try (LsmStore store = LsmStore.open(d, StoreConfig.builder().memtableBytes(1 << 20)
                    .mergePolicy(policy, Map.of()).build())) {
                TreeMap<Integer, byte[]> model = load(store);
                store.put(key(5), "in the memtable".getBytes());
                model.put(5, "in the memtable".getBytes());
                store.compactRange(null, null);
                assertEquals(1, components(store).size(), policy);
                check(store, model);
            }
        }
    }

    @Test
    void badRangesAreRefusedAndChangeNothing() {
        try (LsmStore store = openNoMerge()) {
            load(store);
            int components = components(store).size();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.compactRange(key(5), key(1)));
            assertTrue(e.getMessage().contains("from") && e.getMessage().contains("to"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.approximateSize(key(5), key(1)));
            assertEquals(components, components(store).size());
        }
    }

    @Test
    void approximateSizeFollowsTheKeysInTheRange() {
        try (LsmStore store = openNoMerge()) {
            for (int i = 0; i < 20_000; i++) {
                store.put(key(i), new byte[100]);
            }
            store.flush();
            long all = store.approximateSize(null, null);
            long half = store.approximateSize(key(0), key(10_000));
            long none = store.approximateSize(key(30_000), null);
            assertTrue(all >= 20_000 * 100, "all: " + all);
            assertTrue(half > all * 0.35 && half < all * 0.65, "half: " + half + " of " + all);
            assertEquals(0, none);
            assertEquals(0, store.approximateSize(key(7), key(7)));
        }
    }
}
