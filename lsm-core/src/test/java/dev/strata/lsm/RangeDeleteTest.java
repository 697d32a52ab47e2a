package dev.strata.lsm;

import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LsmStore#deleteRange}: what it hides and what it does not (later writes, older
 * snapshots), in memtables, after the WAL is replayed, in flushed tables and through merges;
 * merge operands above a range tombstone; bad arguments refused; and a random history against
 * a model with flushes, compactions, snapshots and reopens under several policies.
 */
class RangeDeleteTest {
    /** Operations per phase of the model history: 1,000 in the fast lane, 3,000 at the slow lane's multiplier 3. */
    private static final int OPS_PER_PHASE = TestScale.scaled(1000);

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ModelReads.key(i);
    }

    private static byte[] u64(long v) {
        return ModelReads.u64(v);
    }

    private static void assertSame(TreeMap<Integer, byte[]> model, LsmStore store, Snapshot snapshot, int keySpace,
                                   String where) {
        ModelReads.assertMatches(model, store, snapshot, keySpace, where);
    }

    @Test
    void hidesOlderWritesOnlyInTheRange() {
        try (LsmStore store = LsmStore.open(dir)) {
            for (int i = 0; i < 10; i++) {
                store.put(key(i), u64(i));
            }
            store.deleteRange(key(3), key(7));
            store.put(key(5), u64(55));
            TreeMap<Integer, byte[]> model = new TreeMap<>();
            for (int i : new int[] {0, 1, 2, 7, 8, 9}) {
                model.put(i, u64(i));
            }
            model.put(5, u64(55));
            assertSame(model, store, null, 12, "memtable");
            store.flush();
            assertSame(model, store, null, 12, "flushed");
            store.compactRange(null, null);
            assertSame(model, store, null, 12, "compacted");
        }
        try (LsmStore store = LsmStore.open(dir)) {
            assertNull(store.get(key(4)));
            assertArrayEquals(u64(55), store.get(key(5)));
        }
    }

    @Test
    void aMemtableOfRangeTombstonesAloneFlushesToATableOfThem() {
        try (LsmStore store = LsmStore.open(dir)) {
            for (int i = 0; i < 50; i++) {
                store.put(key(i), u64(i));
            }
            store.flush();
            store.deleteRange(key(10), key(20));
            assertTrue(store.getFromMemory(key(15)).answered(), "a range tombstone in memory answers");
            assertNull(store.getFromMemory(key(15)).value());
            assertFalse(store.getFromMemory(key(25)).answered());
            store.flush();
            store.deleteRange(key(30), key(40));
            store.flush();
            TreeMap<Integer, byte[]> model = new TreeMap<>();
            for (int i = 0; i < 50; i++) {
                if (!(i >= 10 && i < 20) && !(i >= 30 && i < 40)) {
                    model.put(i, u64(i));
                }
            }
            assertSame(model, store, null, 60, "tables of tombstones");
            // Estimates and stats take tables without entries in their stride.
            assertTrue(store.approximateSize(key(0), key(60)) >= 0);
            assertTrue(store.estimateKeyCount() >= model.size(), "the estimate errs high, never low");
            assertTrue(store.stats().toString().contains("flushes"));
        }
        try (LsmStore store = LsmStore.open(dir)) {
            assertNull(store.get(key(35)));
            store.compactRange(null, null);
            assertNull(store.get(key(35)));
            assertArrayEquals(u64(45), store.get(key(45)));
        }
    }

    @Test
    void snapshotsOlderThanTheTombstoneStillSeeTheData() {
        try (LsmStore store = LsmStore.open(dir)) {
            for (int i = 0; i < 100; i++) {
                store.put(key(i), u64(i));
            }
            store.flush();
            try (Snapshot before = store.snapshot()) {
                store.deleteRange(key(10), key(90));
                assertNull(store.get(key(50)));
                assertArrayEquals(u64(50), before.get(key(50)));
                store.flush();
                store.compactRange(null, null);
                assertNull(store.get(key(50)));
                assertArrayEquals(u64(50), before.get(key(50)), "the merge kept what the snapshot needs");
                try (Cursor c = before.scan(key(10), key(90))) {
                    int n = 0;
                    while (c.next()) {
                        n++;
                    }
                    assertEquals(80, n);
                }
            }
            store.compactRange(null, null);
            try (Cursor c = store.scan(null, null)) {
                int n = 0;
                while (c.next()) {
                    n++;
                }
                assertEquals(20, n);
            }
            assertEquals(20, store.estimateKeyCount(), "with the snapshot gone, a merge dropped the covered entries");
        }
    }

    @Test
    void theWalReplaysARangeDeleteAndABatchIsAtomic() {
        try (LsmStore store = LsmStore.open(dir)) {
            for (int i = 0; i < 20; i++) {
                store.put(key(i), u64(i));
            }
            store.flush();
            store.write(new WriteBatch().deleteRange(key(0), key(10)).put(key(3), u64(33)).delete(key(15)));
        }
        try (LsmStore store = LsmStore.open(dir)) {
            assertNull(store.get(key(0)));
            assertNull(store.get(key(9)));
            assertArrayEquals(u64(33), store.get(key(3)), "the put after the range delete in the batch");
            assertArrayEquals(u64(10), store.get(key(10)), "the end is exclusive");
            assertNull(store.get(key(15)));
        }
    }

    @Test
    void mergeOperandsAboveARangeTombstoneCombineFromNoValue() {
        StoreConfig config = StoreConfig.builder().mergeOperator("uint64add").build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put(key(1), u64(100));
            store.merge(key(1), u64(5));
            store.flush();
            store.deleteRange(key(0), key(2));
            store.merge(key(1), u64(7));
            assertArrayEquals(u64(7), store.get(key(1)));
            store.flush();
            assertArrayEquals(u64(7), store.get(key(1)));
            assertArrayEquals(u64(7), store.getAll(key(1))[0]);
            try (Cursor c = store.scan(null, null)) {
                assertTrue(c.seekToLast());
                assertArrayEquals(u64(7), c.value());
                assertTrue(c.seekToFirst());
                assertArrayEquals(u64(7), c.value());
            }
            store.compactRange(null, null);
            assertArrayEquals(u64(7), store.get(key(1)));
        }
    }

    @Test
    void badArgumentsAreRefusedAndChangeNothing() {
        try (LsmStore store = LsmStore.open(dir)) {
            store.put(key(5), u64(5));
            long seq = store.stats().lastSequence();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.deleteRange(key(9), key(1)));
            assertTrue(e.getMessage().contains("after"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.deleteRange(null, key(1)));
            assertThrows(IllegalArgumentException.class, () -> store.deleteRange(key(0), new byte[5000]));
            assertEquals(seq, store.stats().lastSequence());
            store.deleteRange(key(5), key(5));
            assertArrayEquals(u64(5), store.get(key(5)), "an empty range deletes nothing");
        }
        LsmStore closed = LsmStore.open(dir);
        closed.close();
        assertThrows(StoreClosedException.class, () -> closed.deleteRange(key(1), key(1)));
    }

    @Test
    void agreesWithAModelThroughFlushesMergesSnapshotsAndReopens() {
        // Memtables sized to the phase, so the fast lane flushes and merges as often per operation.
        long memtable = Math.max(StoreConfig.MIN_MEMTABLE_BYTES, (16L << 10) * OPS_PER_PHASE / 2500);
        for (String policy : List.of("size-tiered", "no-merge")) {
            long seed = TestSeed.orRandom();
            String replay = policy + ", seed " + seed;
            Random rnd = new Random(seed);
            StoreConfig config = StoreConfig.builder().memtableBytes(memtable).mergePolicy(policy, Map.of())
                    .mergeOperator("uint64add").build();
            Path d = dir.resolve(policy);
            int keySpace = 400;
            TreeMap<Integer, byte[]> model = new TreeMap<>();
            for (int phase = 0; phase < 3; phase++) {
                try (LsmStore store = LsmStore.open(d, config)) {
                    assertSame(model, store, null, keySpace, "reopened, " + replay);
                    List<Snapshot> snaps = new ArrayList<>();
                    List<TreeMap<Integer, byte[]>> seen = new ArrayList<>();
                    for (int i = 0; i < OPS_PER_PHASE; i++) {
                        int k = rnd.nextInt(keySpace);
                        int op = rnd.nextInt(100);
                        if (op < 50) {
                            long v = rnd.nextInt(1000);
                            store.put(key(k), u64(v));
                            model.put(k, u64(v));
                        } else if (op < 60) {
                            long add = rnd.nextInt(1000);
                            store.merge(key(k), u64(add));
                            byte[] old = model.get(k);
                            model.put(k, u64((old == null ? 0 : ByteBuffer.wrap(old).getLong()) + add));
                        } else if (op < 65) {
                            store.delete(key(k));
                            model.remove(k);
                        } else if (op < 69) {
                            int len = rnd.nextInt(10) == 0 ? rnd.nextInt(keySpace) : rnd.nextInt(30);
                            int to = Math.min(keySpace + 5, k + len);
                            store.deleteRange(key(k), key(to));
                            model.subMap(k, to).clear();
                        } else if (op < 90) {
                            assertArrayEquals(model.get(k), store.get(key(k)), "get " + k + " at op " + i + ", " + replay);
                        } else if (op < 91 && snaps.size() < 3) {
                            snaps.add(store.snapshot());
                            seen.add(new TreeMap<>(model));
                        } else if (op < 92) {
                            store.flush();
                        } else if (rnd.nextInt(60) == 0) {
                            store.compactRange(null, null);
                        }
                    }
                    for (int s = 0; s < snaps.size(); s++) {
                        assertSame(seen.get(s), store, snaps.get(s), keySpace, "snapshot " + s + ", " + replay);
                    }
                    store.flush();
                    store.awaitMerges();
                    for (int s = 0; s < snaps.size(); s++) {
                        assertSame(seen.get(s), store, snaps.get(s), keySpace, "snapshot after merges " + s + ", " + replay);
                        snaps.get(s).close();
                    }
                    assertSame(model, store, null, keySpace, "end of phase " + phase + ", " + replay);
                    store.compactRange(null, null);
                    assertSame(model, store, null, keySpace, "after a full compaction, " + replay);
                }
            }
        }
    }
}
