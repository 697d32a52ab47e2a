package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * Checkpoints under the registered policies (one of each family in the fast lane, every one
 * in the slow lane), taken while a writer runs and merges go on:
 * each opens and holds a prefix of the write history containing every acknowledged write —
 * also after the source went on merging (block compaction must not append to, nor punch, a
 * file a checkpoint links). A checkpoint is taken every {@code 625 * strata.test.multiplier}
 * writes and the source writes twice that after the last, into memtables sized to it (8 KiB
 * times the multiplier), so the fast lane flushes and merges as often as the slow lane
 * (CheckpointConformanceTest at multiplier 3) with less data. The main thread waits for the
 * writer by parking, not spinning: a spinning waiter takes a core from the writer and from the
 * other test JVM.
 */
@SlowTest
class CheckpointConformanceTest {
    private static final int KEYS = 400;
    /** Writes between checkpoints. */
    private static final long WRITES_PER_CHECKPOINT = TestScale.scaled(625L);

    @TempDir
    Path tmp;

    /**
     * In the fast lane one policy of each family ({@link RegisteredPolicies#REPRESENTATIVES}):
     * the cost is a store per policy that flushes and merges under a writer. Every registered
     * policy runs in the slow lane (CheckpointConformanceTest at multiplier 3).
     */
    static Stream<String> policies() {
        return RegisteredPolicies.representativesInTheFastLane();
    }

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void checkpointsDuringWritesHoldEveryAcknowledgedWrite(String name) throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(TestScale.scaled(8L << 10)).blockCacheBytes(1 << 20)
                .mergePolicy(name, Map.of()).build();
        AtomicLong written = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        long[] acknowledged = new long[2];
        try (LsmStore store = LsmStore.open(tmp.resolve("source"), config)) {
            Thread writer = new Thread(() -> {
                try {
                    for (long i = 0; !stop.get(); i++) {
                        store.put(key(i % KEYS), ByteBuffer.allocate(100).putLong(i).array());
                        written.set(i + 1);
                    }
                } catch (Throwable t) {
                    writerFailure.set(t);
                }
            });
            writer.start();
            try {
                for (int c = 0; c < acknowledged.length; c++) {
                    while (written.get() < (c + 1) * WRITES_PER_CHECKPOINT && writerFailure.get() == null) {
                        LockSupport.parkNanos(100_000);
                    }
                    acknowledged[c] = written.get();
                    store.checkpoint(tmp.resolve("cp" + c));
                }
                // The source goes on writing and merging over the files the checkpoints link.
                long more = written.get() + 2 * WRITES_PER_CHECKPOINT;
                while (written.get() < more && writerFailure.get() == null) {
                    LockSupport.parkNanos(100_000);
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            assertNull(writerFailure.get(), () -> "writer failed: " + writerFailure.get());
            store.awaitMerges();
            assertEquals(0, store.stats().policyErrors(), "policy errors in the source");
        }
        for (int c = 0; c < acknowledged.length; c++) {
            checkPrefix(tmp.resolve("cp" + c), config, acknowledged[c], name + " checkpoint " + c);
        }
    }

    /**
     * With a column family beside the default one: write i goes to the default family (even
     * i) or family {@code f} (odd i), key {@code (i / 2) % KEYS}, both trees flushing and
     * merging under the policy. Each checkpoint holds one prefix of the history across both
     * families — every acknowledged write, and no family ahead of the other.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void checkpointsOfAStoreWithAFamilyHoldOnePrefixAcrossFamilies(String name) throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(TestScale.scaled(8L << 10)).blockCacheBytes(1 << 20)
                .mergePolicy(name, Map.of()).build();
        AtomicLong written = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        long[] acknowledged = new long[2];
        try (LsmStore store = LsmStore.open(tmp.resolve("source"), config)) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            Thread writer = new Thread(() -> {
                try {
                    for (long i = 0; !stop.get(); i++) {
                        byte[] value = ByteBuffer.allocate(100).putLong(i).array();
                        if (i % 2 == 0) {
                            store.put(key((i / 2) % KEYS), value);
                        } else {
                            store.put(f, key((i / 2) % KEYS), value);
                        }
                        written.set(i + 1);
                    }
                } catch (Throwable t) {
                    writerFailure.set(t);
                }
            });
            writer.start();
            try {
                for (int c = 0; c < acknowledged.length; c++) {
                    while (written.get() < (c + 1) * 2 * WRITES_PER_CHECKPOINT && writerFailure.get() == null) {
                        LockSupport.parkNanos(100_000);
                    }
                    acknowledged[c] = written.get();
                    store.checkpoint(tmp.resolve("cp" + c));
                }
                long more = written.get() + 4 * WRITES_PER_CHECKPOINT;
                while (written.get() < more && writerFailure.get() == null) {
                    LockSupport.parkNanos(100_000);
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            assertNull(writerFailure.get(), () -> "writer failed: " + writerFailure.get());
            store.awaitMerges();
            assertEquals(0, store.stats().policyErrors(), "policy errors in the source");
            assertEquals(0, store.columnFamilyStats(f).policyErrors(), "policy errors in family f");
        }
        for (int c = 0; c < acknowledged.length; c++) {
            try (LsmStore cp = LsmStore.open(tmp.resolve("cp" + c), config)) {
                ColumnFamily f = cp.columnFamily("f");
                long[][] values = new long[2][KEYS];
                long newest = -1;
                for (int p = 0; p < 2; p++) {
                    for (int k = 0; k < KEYS; k++) {
                        byte[] v = p == 0 ? cp.get(key(k)) : cp.get(f, key(k));
                        values[p][k] = v == null ? -1 : ByteBuffer.wrap(v).getLong();
                        newest = Math.max(newest, values[p][k]);
                    }
                }
                long n = newest + 1;
                String what = name + " checkpoint " + c;
                assertTrue(n >= acknowledged[c], what + " lost acknowledged writes: holds " + n + " of " + acknowledged[c]);
                for (int p = 0; p < 2; p++) {
                    long familyWrites = (n - p + 1) / 2; // writes i < n with i % 2 == p
                    for (int k = 0; k < KEYS; k++) {
                        long j = familyWrites - 1 - Math.floorMod(familyWrites - 1 - k, KEYS);
                        long expected = j < 0 ? -1 : 2 * j + p;
                        assertEquals(expected, values[p][k], what + ": family " + (p == 0 ? "default" : "f")
                                + ", key " + k + " after " + n + " writes");
                    }
                }
            }
        }
    }

    private static void checkPrefix(Path checkpoint, StoreConfig config, long acknowledged, String what) {
        try (LsmStore cp = LsmStore.open(checkpoint, config)) {
            long[] values = new long[KEYS];
            long newest = -1;
            for (int k = 0; k < KEYS; k++) {
                byte[] v = cp.get(key(k));
                values[k] = v == null ? -1 : ByteBuffer.wrap(v).getLong();
                newest = Math.max(newest, values[k]);
            }
            long n = newest + 1;
            assertTrue(n >= acknowledged, what + " lost acknowledged writes: holds " + n + " of " + acknowledged);
            for (int k = 0; k < KEYS; k++) {
                long expected = n - 1 - Math.floorMod(n - 1 - k, KEYS);
                assertEquals(expected < 0 ? -1 : expected, values[k], what + ": key " + k + " of " + n + " writes");
            }
        }
    }
}
