package dev.strata.lsm;

import dev.strata.lsm.testkit.TestScale;
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
 * {@link LsmStore#merge} with the built-in operators against a model: random puts, deletes and
 * merge operands with flushes, manual compactions, snapshots and reopens, read back through
 * get, scans and snapshots; bad operands and a store without an operator refused.
 */
class MergeOperatorTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ModelReads.key(i);
    }

    private static byte[] u64(long v) {
        return ModelReads.u64(v);
    }

    private record Held(Snapshot snapshot, TreeMap<Integer, byte[]> contents) {
    }

    private static void assertSame(TreeMap<Integer, byte[]> model, LsmStore store, Snapshot snapshot, String where) {
        ModelReads.assertMatches(model, store, snapshot, 300, where);
    }

    @Test
    void uint64addAgreesWithAModelThroughFlushesMergesSnapshotsAndReopens() {
        // With a successive-merge bound, hot keys' operands are written as values (at their
        // sequence number) while snapshots are held: the model must not see a difference.
        record Setup(String policy, int maxSuccessiveMerges) {
        }
        for (Setup setup : List.of(new Setup("size-tiered", 0), new Setup("no-merge", 0), new Setup("size-tiered", 1),
                new Setup("no-merge", 3))) {
            String policy = setup.policy();
            long seed = new Random().nextLong();
            String replay = setup + ", seed " + seed;
            Random rnd = new Random(seed);
            StoreConfig config = StoreConfig.builder().memtableBytes(32 << 10).mergePolicy(policy, Map.of())
                    .mergeOperator("uint64add").maxSuccessiveMerges(setup.maxSuccessiveMerges()).build();
            Path d = dir.resolve(policy + "-" + setup.maxSuccessiveMerges());
            TreeMap<Integer, byte[]> model = new TreeMap<>();
            for (int phase = 0; phase < 3; phase++) {
                try (LsmStore store = LsmStore.open(d, config)) {
                    assertSame(model, store, null, "reopened, " + replay);
                    List<Held> held = new ArrayList<>();
                    // 1,500 operations a phase in the fast lane, 4,500 in the slow lane (MergeOperatorSlowTest).
                    for (int i = 0; i < TestScale.scaled(1_500); i++) {
                        // A quarter of the operations go to three hot keys, whose operands pile up.
                        int k = rnd.nextInt(4) == 0 ? rnd.nextInt(3) : rnd.nextInt(300);
                        int op = rnd.nextInt(100);
                        if (op < 60) {
                            long add = rnd.nextInt(1000);
                            store.merge(key(k), u64(add));
                            byte[] old = model.get(k);
                            long base = old == null ? 0 : ByteBuffer.wrap(old).getLong();
                            model.put(k, u64(base + add));
                        } else if (op < 75) {
                            long v = rnd.nextInt(1_000_000);
                            store.put(key(k), u64(v));
                            model.put(k, u64(v));
                        } else if (op < 85) {
                            store.delete(key(k));
                            model.remove(k);
                        } else if (op < 98) {
                            assertArrayEquals(model.get(k), store.get(key(k)), "get " + k + " at op " + i + ", " + replay);
                        } else if (op < 99 && held.size() < 3) {
                            held.add(new Held(store.snapshot(), new TreeMap<>(model)));
                        } else if (rnd.nextInt(40) == 0) {
                            store.compactRange(null, null);
                        }
                    }
                    for (Held h : held) {
                        assertSame(h.contents(), store, h.snapshot(), "snapshot, " + replay);
                    }
                    store.flush();
                    store.awaitMerges();
                    for (Held h : held) {
                        assertSame(h.contents(), store, h.snapshot(), "snapshot after merges, " + replay);
                        h.snapshot().close();
                    }
                    assertSame(model, store, null, "end of phase " + phase + ", " + replay);
                    store.compactRange(null, null);
                    assertSame(model, store, null, "after a full compaction, " + replay);
                    if (setup.maxSuccessiveMerges() > 0) {
                        assertTrue(store.stats().mergesCollapsed() > 0, "no merge was written as a value, " + replay);
                    } else {
                        assertEquals(0, store.stats().mergesCollapsed(), replay);
                    }
                }
            }
        }
    }

    @Test
    void stringappendAndBatches() {
        StoreConfig config = StoreConfig.builder().mergeOperator("stringappend").build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.merge("k".getBytes(), "a".getBytes());
            store.write(new WriteBatch().merge("k".getBytes(), "b".getBytes()).merge("k".getBytes(), "c".getBytes()));
            assertArrayEquals("a,b,c".getBytes(), store.get("k".getBytes()));
            store.flush();
            store.merge("k".getBytes(), "d".getBytes());
            assertArrayEquals("a,b,c,d".getBytes(), store.get("k".getBytes()));
            store.put("k".getBytes(), "x".getBytes());
            store.merge("k".getBytes(), "y".getBytes());
            assertArrayEquals("x,y".getBytes(), store.get("k".getBytes()));
            store.delete("k".getBytes());
            store.merge("k".getBytes(), "z".getBytes());
            assertArrayEquals("z".getBytes(), store.get("k".getBytes()));
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertArrayEquals("z".getBytes(), store.get("k".getBytes()), "after replaying the WAL");
            // A multi-get combines operands too; an operand in memory is not an answer from memory alone.
            store.put("p".getBytes(), "1".getBytes());
            store.flush();
            store.merge("p".getBytes(), "2".getBytes());
            byte[][] all = store.getAll("p".getBytes(), "k".getBytes(), "none".getBytes());
            assertArrayEquals("1,2".getBytes(), all[0]);
            assertArrayEquals("z".getBytes(), all[1]);
            assertNull(all[2]);
            assertFalse(store.getFromMemory("p".getBytes()).answered(), "an operand needs the table below it");
            // Operands on a value in memory are answered from memory, combined.
            store.put("q".getBytes(), "1".getBytes());
            store.merge("q".getBytes(), "2".getBytes());
            store.write(new WriteBatch().merge("q".getBytes(), "3".getBytes()));
            assertTrue(store.getFromMemory("q".getBytes()).answered());
            assertArrayEquals("1,2,3".getBytes(), store.getFromMemory("q".getBytes()).value());
            store.delete("q".getBytes());
            store.merge("q".getBytes(), "4".getBytes());
            assertArrayEquals("4".getBytes(), store.getFromMemory("q".getBytes()).value(), "on a delete");
        }
    }

    @Test
    void badOperandsAndStoresWithoutAnOperatorAreRefusedAndChangeNothing() {
        try (LsmStore store = LsmStore.open(dir.resolve("plain"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.merge("k".getBytes(), u64(1)));
            assertTrue(e.getMessage().contains("no merge operator"), e.getMessage());
            assertNull(store.get("k".getBytes()));
        }
        StoreConfig config = StoreConfig.builder().mergeOperator("uint64add").build();
        try (LsmStore store = LsmStore.open(dir.resolve("adds"), config)) {
            store.merge("k".getBytes(), u64(5));
            long seq = store.stats().lastSequence();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.write(new WriteBatch().merge("k".getBytes(), u64(1)).merge("k".getBytes(), new byte[3])));
            assertTrue(e.getMessage().contains("uint64add") && e.getMessage().contains("3 bytes"), e.getMessage());
            assertEquals(seq, store.stats().lastSequence());
            assertArrayEquals(u64(5), store.get("k".getBytes()));
            // A missing value counts as 0; a stored value that is not 8 bytes is replaced.
            store.put("s".getBytes(), "not a number".getBytes());
            store.merge("s".getBytes(), u64(7));
            assertArrayEquals(u64(7), store.get("s".getBytes()));
            store.flush();
        }
        // Operands on disk and no operator: a clear error, not the operand as a value.
        try (LsmStore store = LsmStore.open(dir.resolve("adds"))) {
            StoreException e = assertThrows(StoreException.class, () -> store.get("k".getBytes()));
            assertTrue(e.getMessage().contains("merge operator"), e.getMessage());
            assertThrows(StoreException.class, () -> {
                try (Cursor c = store.scan(null, null)) {
                    while (c.next()) {
                        c.value();
                    }
                }
            });
        }
        ConfigException e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().mergeOperator("max").build());
        assertTrue(e.getMessage().contains("max") && e.getMessage().contains("uint64add"), e.getMessage());
    }
}
