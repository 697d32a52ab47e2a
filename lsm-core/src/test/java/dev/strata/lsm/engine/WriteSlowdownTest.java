package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WriteDelayStats;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.WriteAdmission;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A policy's SLOW_DOWN paces write groups by their bytes over the store's delayed write rate
 * (RocksDB's {@code delayed_write_rate}); it is not LevelDB's one millisecond a write group,
 * which held one writer to about 1,000 puts a second whatever their size (issue 36, the
 * zstd-bottommost stall). The assertions are on the delays the engine computed
 * ({@link WriteDelayStats}) and on lower bounds of time, which a loaded machine cannot break.
 */
class WriteSlowdownTest {
    private static final int PUTS = 4_000;
    private static final long RATE = 1L << 20;

    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 8).getBytes(UTF_8);
    }

    private static byte[] value(int i) {
        return ("v".repeat(100) + i).getBytes(UTF_8);
    }

    /** The bytes the write slowdown charges for one put of {@code key(i)} and {@code value(i)}. */
    private static long putBytes(int i) {
        return new WriteBatch().put(key(i), value(i)).approximateBytes();
    }

    private static double nanosFor(long bytes, double rate) {
        return bytes * 1e9 / rate;
    }

    /**
     * A merge held before it writes, so the policy's SLOW_DOWN stays in force, then
     * {@value #PUTS} single puts of about 130 bytes. The old rule waited one millisecond for
     * each, at least 4 s in all (5.7 s measured on main); at the default 16 MiB/s their bytes
     * are worth about 31 ms.
     */
    @Test
    void aSlowDownDelaysEachWriteGroupByItsBytesNotByAMillisecond() throws Exception {
        CountDownLatch mergeHeld = new CountDownLatch(1);
        CountDownLatch releaseMerge = new CountDownLatch(1);
        AtomicBoolean holdMerge = new AtomicBoolean(true);
        StoreConfig config = StoreConfig.builder().mergePolicy(policy).policyTickMillis(0).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            TestAccess.engine(store).backgroundHook(0, step -> {
                if (step.equals("merge started") && holdMerge.compareAndSet(true, false)) {
                    mergeHeld.countDown();
                    try {
                        releaseMerge.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            try {
                for (int table = 0; table < 2; table++) {
                    store.put(key(table), value(table));
                    store.flush();
                }
                policy.admission.set(tree -> WriteAdmission.SLOW_DOWN);
                policy.script.set(tree -> {
                    List<ComponentId> l0 = new ArrayList<>();
                    tree.level(0).runs().forEach(r -> r.components().forEach(v -> l0.add(v.id())));
                    return l0.size() < 2 ? List.of()
                            : List.of(MergeTask.rewrite(l0, Placement.newRun(1), OutputSpec.singleFile(), "held"));
                });
                store.put(key(2), value(2));
                store.flush(); // the decision after this flush starts the merge and answers SLOW_DOWN
                assertTrue(mergeHeld.await(60, TimeUnit.SECONDS), "the merge started");
                assertEquals(WriteAdmission.SLOW_DOWN, TestAccess.engine(store).admission(0));

                long stallBefore = store.stats().stallNanos();
                long bytes = 0;
                long maxPut = 0;
                for (int i = 0; i < PUTS; i++) {
                    store.put(key(10 + i), value(i));
                    bytes += putBytes(10 + i);
                    maxPut = Math.max(maxPut, putBytes(10 + i));
                }
                long stalled = store.stats().stallNanos() - stallBefore;
                assertTrue(stalled < TimeUnit.SECONDS.toNanos(2), "writers waited " + stalled / 1e6 + " ms for "
                        + PUTS + " puts of about 130 bytes under SLOW_DOWN (16 MiB/s: about 31 ms)");
                WriteDelayStats d = store.stats().writeDelays();
                double rate = StoreConfig.DEFAULT_DELAYED_WRITE_RATE;
                // A writer slower than 16 MiB/s is not delayed at all; a faster one by a millisecond at a time.
                assertTrue(d.maxDelayNanos() <= nanosFor(maxPut, rate) + WritePacer.QUANTUM_NANOS, d.toString());
                assertTrue(d.delayNanos() <= nanosFor(bytes + 3 * putBytes(0), rate), d + " for " + bytes + " bytes");
            } finally {
                releaseMerge.countDown();
            }
        }
    }

    /**
     * A SLOW_DOWN with nothing running is the policy's word, not a deadlock (unlike a STOP):
     * it is kept, not counted as a policy error, and paces the writers to the rate: the puts
     * take at least their bytes over it, and no group waits more than its own bytes over it
     * (plus the millisecond below which delays are carried, not slept).
     */
    @Test
    void writeGroupsArePacedToTheDelayedWriteRateAndEachWaitIsBoundedByItsBytes() {
        policy.admission.set(tree -> WriteAdmission.SLOW_DOWN);
        // 64 KiB/s: 500 puts of about 130 bytes are worth about 1 s, far more than they take unpaced
        // even on a loaded machine, and far more than the 100 ms of credit the pacer may bank.
        long rate = 64L << 10;
        StoreConfig config = StoreConfig.builder().mergePolicy(policy).policyTickMillis(10).delayedWriteRate(rate)
                .build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            awaitAdmission(store, WriteAdmission.SLOW_DOWN);
            PacedPuts run = PacedPuts.of(store, 500);
            WriteDelayStats d = store.stats().writeDelays();
            assertTrue(d.delayedGroups() > 0, d.toString());
            run.assertPacedTo(rate, d);
            assertEquals(0, store.stats().policyErrors(), "a SLOW_DOWN with nothing running is not an error");
        }
    }

    /** At depth 1 (at the stop) the rate is 1/64 of the delayed write rate, and each wait still bounded. */
    @Test
    void deeperIntoTheBandTheRateFalls() {
        policy.admission.set(tree -> WriteAdmission.SLOW_DOWN);
        policy.depth.set(tree -> 1.0);
        StoreConfig config = StoreConfig.builder().mergePolicy(policy).policyTickMillis(10).delayedWriteRate(RATE)
                .build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            awaitAdmission(store, WriteAdmission.SLOW_DOWN);
            PacedPuts.of(store, 100).assertPacedTo(RATE / 64.0, store.stats().writeDelays());
        }
    }

    /**
     * A group delayed by 4 s (64 KiB at the lowest rate, 16 KiB/s) goes in as soon as the
     * policy stops slowing writes down: the rest of the delay is forgiven.
     */
    @Test
    void theDelayEndsWhenThePolicyNoLongerSlowsWritesDown() throws Exception {
        policy.admission.set(tree -> WriteAdmission.SLOW_DOWN);
        StoreConfig config = StoreConfig.builder().mergePolicy(policy).policyTickMillis(10)
                .delayedWriteRate(StoreConfig.MIN_DELAYED_WRITE_RATE).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            awaitAdmission(store, WriteAdmission.SLOW_DOWN);
            Thread release = new Thread(() -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                policy.admission.set(tree -> WriteAdmission.GO);
            });
            release.start();
            long t0 = System.nanoTime();
            store.put(key(1), new byte[64 << 10]);
            long took = System.nanoTime() - t0;
            release.join();
            WriteDelayStats d = store.stats().writeDelays();
            assertEquals(1, d.delayedGroups(), d.toString());
            assertTrue(d.maxDelayNanos() >= TimeUnit.MILLISECONDS.toNanos(3_900), "asked to wait ~4 s: " + d);
            assertTrue(took < TimeUnit.MILLISECONDS.toNanos(3_500), "went in after " + took / 1e6 + " ms");
            assertEquals(WriteAdmission.GO, TestAccess.engine(store).admission(0));
        }
    }

    /** Puts {@code 0..count-1} one at a time: their bytes, the largest put's, and the time they took. */
    private record PacedPuts(long bytes, long maxPut, long tookNanos) {
        static PacedPuts of(LsmStore store, int count) {
            long bytes = 0;
            long maxPut = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < count; i++) {
                store.put(key(i), value(i));
                bytes += putBytes(i);
                maxPut = Math.max(maxPut, putBytes(i));
            }
            return new PacedPuts(bytes, maxPut, System.nanoTime() - t0);
        }

        /**
         * No put waited more than its bytes over {@code rate} plus the pacer's quantum, and all of
         * them went in no faster than {@code rate} allows (less the credit the pacer may bank).
         */
        void assertPacedTo(double rate, WriteDelayStats d) {
            assertTrue(d.maxDelayNanos() <= nanosFor(maxPut, rate) + WritePacer.QUANTUM_NANOS,
                    "no put waits more than its bytes over the rate plus 1 ms: " + d);
            assertTrue(tookNanos >= nanosFor(bytes, rate) - WritePacer.MAX_CREDIT_NANOS,
                    bytes + " bytes went in in " + tookNanos / 1e6 + " ms, faster than " + rate + " B/s");
        }
    }

    private static void awaitAdmission(LsmStore store, WriteAdmission expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (TestAccess.engine(store).admission(0) != expected) {
            assertTrue(System.nanoTime() < deadline, "the policy's answer reached the engine");
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
