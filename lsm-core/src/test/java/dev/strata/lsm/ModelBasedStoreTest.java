package dev.strata.lsm;

import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import dev.strata.lsm.wal.WalSyncMode;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random operation histories against a TreeMap oracle: puts, deletes, batches, gets,
 * scans, random cursor walks both ways (seek, seekForPrev, seekToFirst, seekToLast, next,
 * prev, with bounds, with writes in between that the cursor must not see, see
 * {@link CursorModel}), snapshots, flushes, merges and close/reopen under random small
 * configurations. Replay one history with {@code -Dstrata.test.seed=N}. The fast lane runs 3
 * histories (and 3 per codec); the slow lane ({@link ModelBasedStoreSlowTest}) runs
 * {@code 3 * strata.test.multiplier}.
 */
class ModelBasedStoreTest {
    private static final Comparator<byte[]> KEYS = Arrays::compareUnsigned;

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

    /** Restart intervals of prefix-compressed leaves the histories pick from: every cell, tiny, the default, huge. */
    private static final int[] RESTART_INTERVALS = {1, 2, 16, 1024};

    private record OpenSnapshot(Snapshot snapshot, TreeMap<byte[], byte[]> view) {
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void historyMatchesOracle(long seed) throws Exception {
        run(seed, null);
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> codecSeeds() {
        boolean one = TestSeed.fixed().isPresent();
        long base = one ? TestSeed.fixed().getAsLong() : System.nanoTime();
        int n = one ? 1 : TestScale.scaled(1);
        List<org.junit.jupiter.params.provider.Arguments> out = new ArrayList<>();
        for (dev.strata.lsm.sstable.Compression c : List.of(dev.strata.lsm.sstable.Compression.LZ4,
                dev.strata.lsm.sstable.Compression.ZSTD, dev.strata.lsm.sstable.Compression.SNAPPY)) {
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
    void compressedHistoryMatchesOracle(dev.strata.lsm.sstable.Compression codec, long seed) throws Exception {
        run(seed, codec);
    }

    private void run(long seed, dev.strata.lsm.sstable.Compression codec) throws Exception {
        TestSeed.use(seed);
        System.out.println("ModelBasedStoreTest seed=" + seed + (codec == null ? "" : " codec=" + codec)
                + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        Path dir = Files.createDirectories(tmp.resolve("s" + seed + (codec == null ? "" : "-" + codec)));
        // Prefix-compressed leaves (the default) at a random restart interval; every reopen may
        // switch to plain leaves and back, so merges mix tables of both leaf encodings.
        StoreConfig config = randomConfig(rnd).toBuilder().restartInterval(RESTART_INTERVALS[rnd.nextInt(
                RESTART_INTERVALS.length)]).build();
        if (codec != null) {
            config = config.toBuilder().compression(codec).build();
        }
        boolean text = codec != null;
        TreeMap<byte[], byte[]> oracle = new TreeMap<>(KEYS);
        List<OpenSnapshot> snaps = new ArrayList<>();
        int keySpace = 50 + rnd.nextInt(2000);
        LsmStore store = LsmStore.open(dir, config);
        try {
            int ops = 3000;
            for (int i = 0; i < ops; i++) {
                int op = rnd.nextInt(1000);
                if (op < 450) {
                    byte[] k = key(rnd, keySpace);
                    byte[] v = value(rnd, text);
                    store.put(k, v);
                    oracle.put(k, v);
                } else if (op < 550) {
                    byte[] k = key(rnd, keySpace);
                    store.delete(k);
                    oracle.remove(k);
                } else if (op < 600) {
                    WriteBatch b = new WriteBatch();
                    int n = 1 + rnd.nextInt(20);
                    TreeMap<byte[], byte[]> after = new TreeMap<>(oracle);
                    for (int j = 0; j < n; j++) {
                        byte[] k = key(rnd, keySpace);
                        if (rnd.nextInt(4) == 0) {
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
                    config = config.toBuilder().leafEncoding(rnd.nextInt(3) == 0 ? dev.strata.lsm.sstable.LeafEncoding.PLAIN
                            : dev.strata.lsm.sstable.LeafEncoding.PREFIX).restartInterval(RESTART_INTERVALS[rnd.nextInt(
                            RESTART_INTERVALS.length)]).build();
                    if (codec != null) {
                        dev.strata.lsm.sstable.Compression[] all = dev.strata.lsm.sstable.Compression.values();
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

    static StoreConfig randomConfig(Random rnd) {
        StoreConfig.Builder b = StoreConfig.builder()
                .memtableBytes(4096L << rnd.nextInt(5))
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

    static byte[] key(Random rnd, int keySpace) {
        int k = rnd.nextInt(keySpace);
        return rnd.nextInt(50) == 0 ? new byte[] {(byte) k} : String.format("key-%06d", k).getBytes();
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
