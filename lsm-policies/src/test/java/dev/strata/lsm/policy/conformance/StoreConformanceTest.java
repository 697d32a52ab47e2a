package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conformance, part (b): every registered policy with its default parameters runs a real
 * store with a small memtable under a random history of puts, deletes, range deletes, merge
 * operands, batches (range deletes among them), gets and
 * scans (each read forwards, then backwards) checked against a {@link TreeMap} oracle, with
 * snapshots held across flushes and merges, and a reopen in the middle and at the end. After each phase the store holds
 * exactly the oracle's contents, counts no policy error (a rejected decision or a policy
 * exception) and has not merged in a loop (at most {@link #MAX_MERGES_PER_FLUSH} merges per
 * flush); a policy that never lets merges finish fails on the timeout instead of hanging
 * the build. Replay one history with {@code -Dstrata.test.seed=N}. The fast lane runs one
 * policy of each family ({@link RegisteredPolicies#REPRESENTATIVES}), the slow lane every
 * registered policy. In the fast lane a history
 * is 1,500 operations over as many keys, into memtables sized to it (32 KiB for 4,000
 * operations, proportionally smaller for fewer), so a short history flushes and merges as
 * often per operation as a long one. In the slow lane ({@link StoreConformanceSlowTest},
 * multiplier above 1) it is the size it had before the fast lane existed:
 * {@code 4,000 * strata.test.multiplier} operations (12,000 at multiplier 3) over 4,000 keys
 * into 32 KiB memtables.
 */
class StoreConformanceTest {
    private static final Comparator<byte[]> KEYS = Arrays::compareUnsigned;
    /** True in the slow lane (multiplier above 1): the pre-fast-lane sizes. */
    static final boolean FULL_SIZE = TestScale.multiplier() > 1;
    /** Operations of a history: 1,500 in the fast lane, 4,000 times the multiplier in the slow lane. */
    static final int OPS = FULL_SIZE ? TestScale.scaled(4_000) : 1_500;
    /** The memtable: 32 KiB for a history of 4,000 operations, proportionally smaller for fewer; 32 KiB in the slow lane. */
    static final long MEMTABLE_BYTES = FULL_SIZE ? 32L << 10
            : Math.max(StoreConfig.MIN_MEMTABLE_BYTES, (32L << 10) * OPS / 4_000);
    /** The keys a history draws from: as many as it has operations in the fast lane, 4,000 in the slow lane. */
    static final int KEY_SPACE = FULL_SIZE ? 4_000 : OPS;
    /** A policy merging more often than this per flush, on average, is rewriting in a loop. */
    private static final int MAX_MERGES_PER_FLUSH = 20;

    /** A snapshot and the oracle's contents when it was taken. */
    private record HeldSnapshot(Snapshot snapshot, TreeMap<byte[], byte[]> contents) {
    }

    @TempDir
    Path tmp;

    /**
     * One policy of each family in the fast lane ({@link RegisteredPolicies#REPRESENTATIVES});
     * every registered policy in the slow lane ({@link StoreConformanceSlowTest}).
     */
    static Stream<String> policies() {
        return RegisteredPolicies.representativesInTheFastLane();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void storeAgreesWithTheOracleAcrossReopens(String name) {
        RegisteredPolicies.skipKnownGap("store", name);
        long seed = TestSeed.orRandom();
        int ops = OPS;
        String replay = name + " (replay with -Dstrata.test.seed=" + seed + ")";
        Random rnd = new Random(seed ^ name.hashCode());
        StoreConfig config = StoreConfig.builder().memtableBytes(MEMTABLE_BYTES).blockCacheBytes(1 << 20)
                .mergePolicy(name, Map.of()).mergeOperator("stringappend").build();
        Path dir = tmp.resolve(name);
        TreeMap<byte[], byte[]> oracle = new TreeMap<>(KEYS);
        int keySpace = KEY_SPACE;
        for (int phase = 0; phase < 2; phase++) {
            try (LsmStore store = LsmStore.open(dir, config)) {
                assertSameContents(oracle, store, "after opening for phase " + phase + ": " + replay);
                List<HeldSnapshot> snapshots = new ArrayList<>();
                for (int i = 0; i < ops / 2; i++) {
                    String where = "phase " + phase + " op " + i + ": " + replay;
                    if (rnd.nextInt(1000) < 3) {
                        snapshotStep(rnd, store, oracle, snapshots, keySpace, where);
                    } else if (rnd.nextInt(2000) == 0) {
                        compactStep(rnd, store, oracle, keySpace, where);
                    } else {
                        step(rnd, store, oracle, keySpace, where);
                    }
                }
                store.awaitMerges();
                for (HeldSnapshot h : snapshots) {
                    try (Cursor c = h.snapshot().scan(null, null)) {
                        checkCursor(h.contents(), c, "snapshot at the end of phase " + phase + ": " + replay);
                    }
                    h.snapshot().close();
                }
                if (phase == 1) {
                    // A full manual compaction through the policy's plan, then the policy's own merges.
                    store.compactRange(null, null);
                    assertSameContents(oracle, store, "after a full compactRange in phase " + phase + ": " + replay);
                }
                store.awaitMerges();
                StoreStats stats = store.stats();
                assertEquals(0, stats.policyErrors(), "policy errors in phase " + phase + ": " + replay + "; "
                        + stats);
                assertTrue(stats.flushCount() >= 5, "the workload flushed: " + stats);
                assertTrue(stats.mergeCount() <= MAX_MERGES_PER_FLUSH * stats.flushCount(), "merges in a loop: "
                        + replay + "; " + stats);
                assertSameContents(oracle, store, "end of phase " + phase + ": " + replay);
            }
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertSameContents(oracle, store, "after the final reopen: " + replay);
            assertEquals(0, store.stats().policyErrors(), "policy errors after the final reopen: " + replay);
        }
    }

    /**
     * A manual compaction of a random range (sometimes all keys) through the policy's plan:
     * afterwards the store still holds exactly the oracle's contents.
     */
    static void compactStep(Random rnd, LsmStore store, TreeMap<byte[], byte[]> oracle, int keySpace, String where) {
        byte[] a = rnd.nextInt(3) == 0 ? null : key(rnd, keySpace);
        byte[] b = a == null || rnd.nextInt(3) == 0 ? null : key(rnd, keySpace);
        if (a != null && b != null && KEYS.compare(a, b) > 0) {
            byte[] t = a;
            a = b;
            b = t;
        }
        store.compactRange(a, b);
        assertSameContents(oracle, store, "after compactRange(" + (a == null ? "null" : show(a)) + ", "
                + (b == null ? "null" : show(b)) + ") at " + where);
    }

    static void step(Random rnd, LsmStore store, TreeMap<byte[], byte[]> oracle, int keySpace, String where) {
        int op = rnd.nextInt(100);
        if (op < 50) {
            byte[] k = key(rnd, keySpace);
            byte[] v = value(rnd);
            store.put(k, v);
            oracle.put(k, v);
        } else if (op < 55) {
            // A merge operand (stringappend): the value gains ",operand".
            byte[] k = key(rnd, keySpace);
            byte[] operand = value(rnd);
            store.merge(k, operand);
            byte[] old = oracle.get(k);
            if (old == null) {
                oracle.put(k, operand);
            } else {
                byte[] joined = Arrays.copyOf(old, old.length + 1 + operand.length);
                joined[old.length] = ',';
                System.arraycopy(operand, 0, joined, old.length + 1, operand.length);
                oracle.put(k, joined);
            }
        } else if (op < 65) {
            byte[] k = key(rnd, keySpace);
            store.delete(k);
            oracle.remove(k);
        } else if (op < 67) {
            // A range delete: a few keys, now and then a tenth of the key space, sometimes empty.
            byte[][] r = range(rnd, keySpace);
            store.deleteRange(r[0], r[1]);
            oracle.subMap(r[0], true, r[1], false).clear();
        } else if (op < 72) {
            WriteBatch batch = new WriteBatch();
            TreeMap<byte[], byte[]> after = new TreeMap<>(oracle);
            for (int j = 0, n = 1 + rnd.nextInt(16); j < n; j++) {
                byte[] k = key(rnd, keySpace);
                if (rnd.nextInt(40) == 0) {
                    byte[][] r = range(rnd, keySpace);
                    batch.deleteRange(r[0], r[1]);
                    after.subMap(r[0], true, r[1], false).clear();
                } else if (rnd.nextInt(4) == 0) {
                    batch.delete(k);
                    after.remove(k);
                } else {
                    byte[] v = value(rnd);
                    batch.put(k, v);
                    after.put(k, v);
                }
            }
            store.write(batch);
            oracle.clear();
            oracle.putAll(after);
        } else if (op < 97) {
            byte[] k = key(rnd, keySpace);
            assertArrayEquals(oracle.get(k), store.get(k), "get " + show(k) + " at " + where);
        } else {
            byte[] from = rnd.nextInt(4) == 0 ? null : key(rnd, keySpace);
            byte[] to = from == null || rnd.nextInt(4) == 0 ? null : key(rnd, keySpace);
            NavigableMap<byte[], byte[]> expected = from == null ? oracle
                    : to == null ? oracle.tailMap(from, true)
                    : KEYS.compare(from, to) >= 0 ? new TreeMap<>(KEYS) : oracle.subMap(from, true, to, false);
            try (Cursor c = store.scan(from, to)) {
                checkCursor(expected, c, "scan at " + where);
            }
        }
    }

    /** Takes a snapshot (at most two held), or checks and releases one. */
    private static void snapshotStep(Random rnd, LsmStore store, TreeMap<byte[], byte[]> oracle,
                                     List<HeldSnapshot> snapshots, int keySpace, String where) {
        if (snapshots.size() < 2 && (snapshots.isEmpty() || rnd.nextBoolean())) {
            snapshots.add(new HeldSnapshot(store.snapshot(), new TreeMap<>(oracle)));
            return;
        }
        HeldSnapshot h = snapshots.remove(rnd.nextInt(snapshots.size()));
        for (int j = 0; j < 20; j++) {
            byte[] k = key(rnd, keySpace);
            assertArrayEquals(h.contents().get(k), h.snapshot().get(k), "snapshot get " + show(k) + " at " + where);
        }
        try (Cursor c = h.snapshot().scan(null, null)) {
            checkCursor(h.contents(), c, "snapshot scan at " + where);
        }
        h.snapshot().close();
    }

    static void assertSameContents(TreeMap<byte[], byte[]> oracle, LsmStore store, String where) {
        try (Cursor c = store.scan(null, null)) {
            checkCursor(oracle, c, "full scan " + where);
        }
        for (Map.Entry<byte[], byte[]> e : oracle.entrySet()) {
            assertArrayEquals(e.getValue(), store.get(e.getKey()), "get " + show(e.getKey()) + " " + where);
        }
    }

    private static void checkCursor(NavigableMap<byte[], byte[]> expected, Cursor c, String where) {
        for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
            assertTrue(c.next(), where + ": missing " + show(e.getKey()));
            assertArrayEquals(e.getKey(), c.key(), where);
            assertArrayEquals(e.getValue(), c.value(), where + ": value of " + show(e.getKey()));
        }
        assertFalse(c.next(), where + ": an extra key");
        // Then back from after the last entry to before the first: every policy's layout
        // (runs of several tables, levels) read backwards.
        for (Map.Entry<byte[], byte[]> e : expected.descendingMap().entrySet()) {
            assertTrue(c.prev(), where + " backwards: missing " + show(e.getKey()));
            assertArrayEquals(e.getKey(), c.key(), where + " backwards");
            assertArrayEquals(e.getValue(), c.value(), where + " backwards: value of " + show(e.getKey()));
        }
        assertFalse(c.prev(), where + " backwards: an extra key");
    }

    /** A range to delete: 1 to 20 keys wide, a tenth of the key space one time in ten, empty one in twenty. */
    private static byte[][] range(Random rnd, int keySpace) {
        int from = rnd.nextInt(keySpace);
        int kind = rnd.nextInt(20);
        int width = kind == 0 ? 0 : kind < 3 ? keySpace / 10 : 1 + rnd.nextInt(20);
        return new byte[][] {TestKeys.padded("k", from, 7).getBytes(StandardCharsets.US_ASCII),
                TestKeys.padded("k", from + width, 7).getBytes(StandardCharsets.US_ASCII)};
    }

    private static byte[] key(Random rnd, int keySpace) {
        return TestKeys.padded("k", rnd.nextInt(keySpace), 7).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(Random rnd) {
        byte[] v = new byte[rnd.nextInt(50) == 0 ? 2000 + rnd.nextInt(2000) : 8 + rnd.nextInt(120)];
        rnd.nextBytes(v);
        return v;
    }

    private static String show(byte[] k) {
        return new String(k, StandardCharsets.US_ASCII);
    }
}
