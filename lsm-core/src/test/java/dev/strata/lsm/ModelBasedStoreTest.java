package dev.strata.lsm;

import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random operation histories against a TreeMap oracle: puts, deletes, range deletes (empty,
 * narrow and wide, alone and in batches), batches, gets,
 * scans, random cursor walks both ways (seek, seekForPrev, seekToFirst, seekToLast, next,
 * prev, with bounds, with writes in between that the cursor must not see, see
 * {@link CursorModel}), snapshots, flushes, merges and close/reopen under random small
 * configurations. Replay one history with {@code -Dstrata.test.seed=N}. The fast lane runs 3
 * histories (and 1 per codec) of {@value #FAST_LANE_OPS} operations; the slow lane
 * ({@link ModelBasedStoreSlowTest}) runs {@code 3 * strata.test.multiplier} histories (and
 * {@code strata.test.multiplier} per codec) of {@code FAST_LANE_OPS * strata.test.multiplier}
 * operations. The memtable sizes shrink with the history, so a short history flushes, merges
 * and reopens as often per operation as a long one.
 */
class ModelBasedStoreTest {
    private static final Comparator<byte[]> KEYS = Arrays::compareUnsigned;
    /** Operations of one fast-lane history (the slow lane's are this times the multiplier). */
    static final int FAST_LANE_OPS = 1000;
    /** The history length the memtable sizes of {@link #randomConfig} were chosen for. */
    private static final int FULL_OPS = 3000;

    @TempDir
    Path tmp;

    static LongStream seeds() {
        if (TestSeed.fixed().isPresent()) {
            return LongStream.of(TestSeed.fixed().getAsLong());
        }
        int n = TestScale.scaled(3);
        long base = System.nanoTime();
        return LongStream.range(0, n).map(i -> base + i * 7919);
    }

    /** One family history in the fast lane (about 5 s), {@code strata.test.multiplier} in the slow one. */
    static LongStream familySeeds() {
        if (TestSeed.fixed().isPresent()) {
            return LongStream.of(TestSeed.fixed().getAsLong());
        }
        long base = System.nanoTime();
        return LongStream.range(0, TestScale.scaled(1)).map(i -> base + i * 7919);
    }

    /** Restart intervals of prefix-compressed leaves the histories pick from: every cell, tiny, the default, huge. */
    private static final int[] RESTART_INTERVALS = {1, 2, 16, 1024};

    private record OpenSnapshot(Snapshot snapshot, TreeMap<byte[], byte[]> view) {
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void historyMatchesOracle(long seed) throws Exception {
        run(seed, null, false);
    }

    /**
     * The same histories with the store's memory off the Java heap ({@code <memory
     * offHeap="true"/>}): memtable arenas and cached pages in direct memory, through flushes,
     * merges and reopens (which keep the setting).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("familySeeds")
    void offHeapHistoryMatchesOracle(long seed) throws Exception {
        run(seed, null, true);
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> codecSeeds() {
        boolean one = TestSeed.fixed().isPresent();
        long base = one ? TestSeed.fixed().getAsLong() : System.nanoTime();
        int n = one ? 1 : TestScale.scaled(1);
        List<org.junit.jupiter.params.provider.Arguments> out = new ArrayList<>();
        for (dev.strata.lsm.Compression c : List.of(dev.strata.lsm.Compression.LZ4,
                dev.strata.lsm.Compression.ZSTD, dev.strata.lsm.Compression.SNAPPY)) {
            for (int i = 0; i < n; i++) {
                out.add(org.junit.jupiter.params.provider.Arguments.of(c, base + i * 7919L));
            }
        }
        return out.stream();
    }

    /**
     * The same histories with compressed tables: the store starts with {@code codec}, its
     * values are half text (so pages compress), and every reopen picks a random codec (none
     * included), so the store holds tables of several codecs that merges mix.
     */
    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("codecSeeds")
    void compressedHistoryMatchesOracle(dev.strata.lsm.Compression codec, long seed) throws Exception {
        run(seed, codec, false);
    }

    private void run(long seed, dev.strata.lsm.Compression codec, boolean offHeap) throws Exception {
        TestSeed.use(seed);
        System.out.println("ModelBasedStoreTest seed=" + seed + (codec == null ? "" : " codec=" + codec)
                + (offHeap ? " offHeap" : "") + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        Path dir = Files.createDirectories(tmp.resolve("s" + seed + (codec == null ? "" : "-" + codec)
                + (offHeap ? "-offheap" : "")));
        int ops = TestScale.scaled(FAST_LANE_OPS);
        // Prefix-compressed leaves (the default) at a random restart interval; every reopen may
        // switch to plain leaves and back, so merges mix tables of both leaf encodings.
        StoreConfig config = randomConfig(rnd, ops).toBuilder().restartInterval(RESTART_INTERVALS[rnd.nextInt(
                RESTART_INTERVALS.length)]).build();
        if (codec != null) {
            config = config.toBuilder().compression(codec).build();
        }
        if (offHeap) {
            config = config.toBuilder().offHeap(true).build();
            assertTrue(config.offHeap());
        }
        boolean text = codec != null;
        TreeMap<byte[], byte[]> oracle = new TreeMap<>(KEYS);
        List<OpenSnapshot> snaps = new ArrayList<>();
        int keySpace = 50 + rnd.nextInt(2000);
        LsmStore store = LsmStore.open(dir, config);
        try {
            for (int i = 0; i < ops; i++) {
                int op = rnd.nextInt(1000);
                if (op < 450) {
                    byte[] k = key(rnd, keySpace);
                    byte[] v = value(rnd, text);
                    store.put(k, v);
                    oracle.put(k, v);
                } else if (op < 530) {
                    byte[] k = key(rnd, keySpace);
                    store.delete(k);
                    oracle.remove(k);
                } else if (op < 550) {
                    byte[][] r = range(rnd, keySpace);
                    store.deleteRange(r[0], r[1]);
                    oracle.subMap(r[0], true, r[1], false).clear();
                } else if (op < 600) {
                    WriteBatch b = new WriteBatch();
                    int n = 1 + rnd.nextInt(20);
                    TreeMap<byte[], byte[]> after = new TreeMap<>(oracle);
                    for (int j = 0; j < n; j++) {
                        byte[] k = key(rnd, keySpace);
                        if (rnd.nextInt(30) == 0) {
                            byte[][] r = range(rnd, keySpace);
                            b.deleteRange(r[0], r[1]);
                            after.subMap(r[0], true, r[1], false).clear();
                        } else if (rnd.nextInt(4) == 0) {
                            b.delete(k);
                            after.remove(k);
                        } else {
                            byte[] v = value(rnd, text);
                            b.put(k, v);
                            after.put(k, v);
                        }
                    }
                    store.write(b);
                    oracle.clear();
                    oracle.putAll(after);
                } else if (op < 850) {
                    byte[] k = key(rnd, keySpace);
                    assertArrayEquals(oracle.get(k), store.get(k), "get at op " + i);
                } else if (op < 900) {
                    byte[] from = rnd.nextInt(5) == 0 ? null : key(rnd, keySpace);
                    byte[] to = rnd.nextInt(5) == 0 ? null : key(rnd, keySpace);
                    if (rnd.nextBoolean()) {
                        checkScan(oracle, from, to, store.scan(from, to), "scan at op " + i);
                    } else {
                        // A random walk both ways; writes in between must not show.
                        LsmStore s = store;
                        NavigableMap<byte[], byte[]> view = CursorModel.copy(CursorModel.bounded(oracle, from, to));
                        try (Cursor c = store.scan(from, to)) {
                            CursorModel.walk(c, view, rnd, 10 + rnd.nextInt(60), () -> seekTarget(rnd, keySpace),
                                    () -> writeSome(rnd, keySpace, s, oracle),
                                    "seed " + seed + ": walk [" + show(from) + ", " + show(to) + ") at op " + i);
                        }
                    }
                } else if (op < 920) {
                    if (snaps.size() < 4) {
                        snaps.add(new OpenSnapshot(store.snapshot(), new TreeMap<>(oracle)));
                    }
                } else if (op < 950) {
                    if (!snaps.isEmpty()) {
                        OpenSnapshot s = snaps.get(rnd.nextInt(snaps.size()));
                        byte[] k = key(rnd, keySpace);
                        assertArrayEquals(s.view.get(k), s.snapshot.get(k), "snapshot get at op " + i);
                        if (rnd.nextBoolean()) {
                            checkScan(s.view, null, null, s.snapshot.scan(null, null), "snapshot scan at op " + i);
                        }
                        if (rnd.nextBoolean()) {
                            byte[] from = rnd.nextInt(3) == 0 ? null : key(rnd, keySpace);
                            byte[] to = rnd.nextInt(3) == 0 ? null : key(rnd, keySpace);
                            LsmStore st = store;
                            try (Cursor c = s.snapshot.scan(from, to)) {
                                CursorModel.walk(c, CursorModel.bounded(s.view, from, to), rnd, 10 + rnd.nextInt(60),
                                        () -> seekTarget(rnd, keySpace), () -> writeSome(rnd, keySpace, st, oracle),
                                        "seed " + seed + ": snapshot walk [" + show(from) + ", " + show(to) + ") at op " + i);
                            }
                        }
                        if (rnd.nextInt(3) == 0) {
                            s.snapshot.close();
                            snaps.remove(s);
                        }
                    }
                } else if (op < 970) {
                    store.flush();
                } else if (op < 985) {
                    store.awaitMerges();
                } else {
                    for (OpenSnapshot s : snaps) {
                        s.snapshot.close();
                    }
                    snaps.clear();
                    store.close();
                    config = config.toBuilder().leafEncoding(rnd.nextInt(3) == 0 ? dev.strata.lsm.LeafEncoding.PLAIN
                            : dev.strata.lsm.LeafEncoding.PREFIX).restartInterval(RESTART_INTERVALS[rnd.nextInt(
                            RESTART_INTERVALS.length)]).build();
                    if (codec != null) {
                        dev.strata.lsm.Compression[] all = dev.strata.lsm.Compression.values();
                        config = config.toBuilder().compression(all[rnd.nextInt(all.length)]).build();
                    }
                    store = LsmStore.open(dir, config);
                }
            }
            store.awaitMerges();
            System.out.println("  " + config.mergePolicy() + config.mergePolicyParams() + ": " + store.stats());
            checkScan(oracle, null, null, store.scan(null, null), "final scan");
            try (Cursor c = store.scan(null, null)) {
                CursorModel.checkReverse(c, oracle, "seed " + seed + ": final reverse scan");
            }
            for (Map.Entry<byte[], byte[]> e : oracle.entrySet()) {
                assertArrayEquals(e.getValue(), store.get(e.getKey()));
            }
            for (OpenSnapshot s : snaps) {
                checkScan(s.view, null, null, s.snapshot.scan(null, null), "final snapshot scan");
                try (Cursor c = s.snapshot.scan(null, null)) {
                    CursorModel.checkReverse(c, s.view, "seed " + seed + ": final snapshot reverse scan");
                }
                s.snapshot.close();
            }
            store.close();
            store = LsmStore.open(dir, config);
            checkScan(oracle, null, null, store.scan(null, null), "scan after reopen");
            try (Cursor c = store.scan(null, null)) {
                CursorModel.checkReverse(c, oracle, "seed " + seed + ": reverse scan after reopen");
            }
            assertEquals(0, store.stats().policyErrors(), "policy errors");
        } finally {
            store.close();
        }
    }

    /**
     * A random small configuration for a history of {@code ops} operations: memtables of 4 to
     * 64 KiB for {@value #FULL_OPS} operations, proportionally smaller (at least the minimum)
     * for a shorter history.
     */
    static StoreConfig randomConfig(Random rnd, int ops) {
        long memtable = Math.max(StoreConfig.MIN_MEMTABLE_BYTES, (4096L << rnd.nextInt(5)) * ops / FULL_OPS);
        StoreConfig.Builder b = StoreConfig.builder()
                .memtableBytes(memtable)
                .maxImmutableMemtables(1 + rnd.nextInt(3))
                .backgroundThreads(1 + rnd.nextInt(3))
                .blockCacheBytes(rnd.nextBoolean() ? 0 : 1 << 20)
                .bloomBitsPerKey(rnd.nextInt(3) == 0 ? 0 : 10)
                .walMode(rnd.nextInt(4) == 0 ? WalSyncMode.SYNC : WalSyncMode.ASYNC);
        switch (rnd.nextInt(3)) {
            case 0 -> b.mergePolicy("no-merge");
            case 1 -> b.mergePolicy("size-tiered", Map.of("fanout", String.valueOf(2 + rnd.nextInt(3))));
            default -> b.mergePolicy("size-tiered", Map.of("fanout", "2", "size-ratio", "1000", "max-runs", "6"));
        }
        return b.build();
    }

    /**
     * A range to delete, from <= to: mostly a few keys wide, sometimes empty (from == to),
     * sometimes a tenth of the key space or more, now and then everything.
     */
    static byte[][] range(Random rnd, int keySpace) {
        int kind = rnd.nextInt(20);
        if (kind == 0) {
            byte[] k = key(rnd, keySpace);
            return new byte[][] {k, k};
        }
        if (kind == 1) {
            return new byte[][] {new byte[0], new byte[] {(byte) 0xff, (byte) 0xff}};
        }
        int from = rnd.nextInt(keySpace);
        int width = kind < 5 ? keySpace / 10 + rnd.nextInt(keySpace / 5 + 1) : 1 + rnd.nextInt(8);
        return new byte[][] {TestKeys.padded("key-", from, 6).getBytes(),
                TestKeys.padded("key-", from + width, 6).getBytes()};
    }

    static byte[] key(Random rnd, int keySpace) {
        int k = rnd.nextInt(keySpace);
        return rnd.nextInt(50) == 0 ? new byte[] {(byte) k} : TestKeys.padded("key-", k, 6).getBytes();
    }

    /**
     * A seek target: a key of the key space, or one of its prefixes (the empty key among
     * them), or a key with a byte appended — so targets fall between, before and after keys.
     */
    static byte[] seekTarget(Random rnd, int keySpace) {
        byte[] k = key(rnd, keySpace);
        return switch (rnd.nextInt(6)) {
            case 0 -> Arrays.copyOf(k, rnd.nextInt(k.length + 1));
            case 1 -> Arrays.copyOf(k, k.length + 1);
            default -> k;
        };
    }

    /** A few puts and deletes on {@code store}, recorded in {@code oracle}. */
    static void writeSome(Random rnd, int keySpace, LsmStore store, TreeMap<byte[], byte[]> oracle) {
        for (int n = 1 + rnd.nextInt(20); n > 0; n--) {
            byte[] k = key(rnd, keySpace);
            if (rnd.nextInt(4) == 0) {
                store.delete(k);
                oracle.remove(k);
            } else {
                byte[] v = value(rnd);
                store.put(k, v);
                oracle.put(k, v);
            }
        }
    }

    static String show(byte[] k) {
        return CursorModel.show(k);
    }

    static byte[] value(Random rnd) {
        return value(rnd, false);
    }

    /** A random value; with {@code text}, half of the values repeat a few words (they compress). */
    static byte[] value(Random rnd, boolean text) {
        int len = rnd.nextInt(100) == 0 ? 3000 + rnd.nextInt(6000) : rnd.nextInt(120);
        byte[] v = new byte[len];
        if (text && rnd.nextBoolean()) {
            byte[] words = "strata lsm page tree leaf ".getBytes();
            int shift = rnd.nextInt(words.length);
            for (int i = 0; i < len; i++) {
                v[i] = words[(i + shift) % words.length];
            }
        } else {
            rnd.nextBytes(v);
        }
        return v;
    }

    static void checkScan(TreeMap<byte[], byte[]> oracle, byte[] from, byte[] to, Cursor cursor, String what) {
        Map<byte[], byte[]> expected;
        if (from != null && to != null && KEYS.compare(from, to) >= 0) {
            expected = Map.of();
        } else if (from == null && to == null) {
            expected = oracle;
        } else if (from == null) {
            expected = oracle.headMap(to, false);
        } else if (to == null) {
            expected = oracle.tailMap(from, true);
        } else {
            expected = oracle.subMap(from, true, to, false);
        }
        try (cursor) {
            for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
                assertTrue(cursor.next(), what + ": missing key " + new String(e.getKey()));
                assertArrayEquals(e.getKey(), cursor.key(), what);
                assertArrayEquals(e.getValue(), cursor.value(), what);
            }
            assertFalse(cursor.next(), what + ": extra keys");
        }
    }

    /**
     * Column families against a TreeMap per family: puts, deletes, gets and scans on random
     * families, batches across families, snapshots read in every family, per-family flushes,
     * a family created and dropped (and created again under the same name) as the history
     * goes, and reopens; each family its own memtable size and merge policy.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("familySeeds")
    void familyHistoryMatchesOracle(long seed) {
        TestSeed.use(seed);
        System.out.println("ModelBasedStoreTest families seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        Path dir = tmp.resolve("f" + seed);
        StoreConfig base = randomConfig(rnd, 600);
        StoreConfig.Builder cb = base.toBuilder();
        for (String name : List.of("a", "b")) {
            StoreConfig own = randomConfig(rnd, 600);
            cb.family(name, FamilyOptions.builder().memtableBytes(own.memtableBytes())
                    .mergePolicy(own.mergePolicy(), own.mergePolicyParams()).build());
        }
        StoreConfig config = cb.build();
        int keySpace = 50 + rnd.nextInt(500);
        // Oracles by family name; "c" comes and goes.
        Map<String, TreeMap<byte[], byte[]>> oracles = new java.util.LinkedHashMap<>();
        for (String name : List.of("default", "a", "b")) {
            oracles.put(name, new TreeMap<>(KEYS));
        }
        record FamilySnapshot(Snapshot snapshot, Map<String, TreeMap<byte[], byte[]>> views) {
        }
        List<FamilySnapshot> snaps = new ArrayList<>();
        LsmStore store = LsmStore.open(dir, config);
        try {
            int ops = 600;
            for (int i = 0; i < ops; i++) {
                List<String> names = new ArrayList<>(oracles.keySet());
                String name = names.get(rnd.nextInt(names.size()));
                ColumnFamily cf = store.columnFamily(name);
                TreeMap<byte[], byte[]> oracle = oracles.get(name);
                int op = rnd.nextInt(1000);
                if (op < 400) {
                    byte[] k = key(rnd, keySpace);
                    byte[] v = value(rnd);
                    store.put(cf, k, v);
                    oracle.put(k, v);
                } else if (op < 450) {
                    byte[] k = key(rnd, keySpace);
                    store.delete(cf, k);
                    oracle.remove(k);
                } else if (op < 480) {
                    // A range delete in one family leaves the others alone.
                    byte[] a = key(rnd, keySpace);
                    byte[] b = key(rnd, keySpace);
                    byte[] from = KEYS.compare(a, b) <= 0 ? a : b;
                    byte[] to = from == a ? b : a;
                    store.deleteRange(cf, from, to);
                    oracle.subMap(from, true, to, false).clear();
                } else if (op < 560) {
                    // One batch across families: all of it or nothing, seen at once.
                    WriteBatch b = new WriteBatch();
                    for (int j = 1 + rnd.nextInt(12); j > 0; j--) {
                        String n = names.get(rnd.nextInt(names.size()));
                        ColumnFamily f = store.columnFamily(n);
                        byte[] k = key(rnd, keySpace);
                        int kind = rnd.nextInt(8);
                        if (kind == 0) {
                            byte[] k2 = key(rnd, keySpace);
                            byte[] from = KEYS.compare(k, k2) <= 0 ? k : k2;
                            byte[] to = from == k ? k2 : k;
                            b.deleteRange(f, from, to);
                            oracles.get(n).subMap(from, true, to, false).clear();
                        } else if (kind < 3) {
                            b.delete(f, k);
                            oracles.get(n).remove(k);
                        } else {
                            byte[] v = value(rnd);
                            b.put(f, k, v);
                            oracles.get(n).put(k, v);
                        }
                    }
                    store.write(b);
                } else if (op < 780) {
                    byte[] k = key(rnd, keySpace);
                    assertArrayEquals(oracle.get(k), store.get(cf, k), "get in " + name + " at op " + i);
                } else if (op < 830) {
                    byte[] from = rnd.nextInt(4) == 0 ? null : key(rnd, keySpace);
                    byte[] to = rnd.nextInt(4) == 0 ? null : key(rnd, keySpace);
                    checkScan(oracle, from, to, store.scan(cf, from, to), "scan of " + name + " at op " + i);
                } else if (op < 850) {
                    if (snaps.size() < 3) {
                        Map<String, TreeMap<byte[], byte[]>> views = new java.util.HashMap<>();
                        oracles.forEach((n, o) -> views.put(n, new TreeMap<>(o)));
                        snaps.add(new FamilySnapshot(store.snapshot(), views));
                    }
                } else if (op < 900) {
                    if (!snaps.isEmpty()) {
                        FamilySnapshot s = snaps.get(rnd.nextInt(snaps.size()));
                        TreeMap<byte[], byte[]> view = s.views().get(name);
                        if (view != null) {
                            byte[] k = key(rnd, keySpace);
                            assertArrayEquals(view.get(k), s.snapshot().get(cf, k), "snapshot get in " + name + " at op " + i);
                            checkScan(view, null, null, s.snapshot().scan(cf, null, null),
                                    "snapshot scan of " + name + " at op " + i);
                        }
                        if (rnd.nextInt(3) == 0) {
                            s.snapshot().close();
                            snaps.remove(s);
                        }
                    }
                } else if (op < 940) {
                    store.flushColumnFamily(cf);
                } else if (op < 960) {
                    if (oracles.containsKey("c")) {
                        ColumnFamily c = store.columnFamily("c");
                        store.dropColumnFamily(c);
                        oracles.remove("c");
                        // A family made later under the name is another one: older snapshots saw none of it.
                        for (FamilySnapshot s : snaps) {
                            s.views().remove("c");
                        }
                        LsmStore open = store;
                        byte[] k = key(rnd, keySpace);
                        assertThrows(IllegalArgumentException.class, () -> open.get(c, k));
                    } else {
                        store.createColumnFamily("c", FamilyOptions.builder().memtableBytes(4096L << rnd.nextInt(4))
                                .build());
                        oracles.put("c", new TreeMap<>(KEYS));
                    }
                } else if (op < 975) {
                    store.awaitMerges();
                } else {
                    for (FamilySnapshot s : snaps) {
                        s.snapshot().close();
                    }
                    snaps.clear();
                    store.close();
                    store = LsmStore.open(dir, config);
                }
            }
            store.awaitMerges();
            for (FamilySnapshot s : snaps) {
                s.snapshot().close();
            }
            store.close();
            store = LsmStore.open(dir, config);
            assertEquals(List.copyOf(oracles.keySet()), store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            for (Map.Entry<String, TreeMap<byte[], byte[]>> e : oracles.entrySet()) {
                ColumnFamily cf = store.columnFamily(e.getKey());
                checkScan(e.getValue(), null, null, store.scan(cf, null, null), "scan of " + e.getKey() + " after reopen");
                assertEquals(0, store.columnFamilyStats(cf).policyErrors(), "policy errors in " + e.getKey());
            }
        } finally {
            store.close();
        }
    }

    @org.junit.jupiter.api.Test
    void smoke() {
        try (LsmStore s = LsmStore.open(tmp.resolve("smoke"))) {
            s.put("a".getBytes(), "1".getBytes());
            assertArrayEquals("1".getBytes(), s.get("a".getBytes()));
            s.delete("a".getBytes());
            assertNull(s.get("a".getBytes()));
        }
    }
}
