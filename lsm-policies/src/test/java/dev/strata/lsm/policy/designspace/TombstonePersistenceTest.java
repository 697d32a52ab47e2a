package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policies.ForwardingMergePolicy;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.ManualClock;
import dev.strata.lsm.testkit.SlowTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DS5's last clause on the engine: under {@code tsa}, with the policy tick on, every tombstone
 * reaches the last level (where it is dropped) within D_th of being flushed. The store's clock
 * is a {@link ManualClock} the test moves, so the bound is exact, with no slack for a loaded
 * machine: the test deletes one key per simulated {@value #STEP_MILLIS} ms (with puts beside
 * it) for twice D_th, flushing every {@value #STEPS_PER_FLUSH} deletes, and after every
 * {@value #FLUSHES_PER_CHECK}th flush waits for the store to settle (the flush's decision and
 * the merges that follow, all at the clock's time); then it idles, moving the clock by {@value #IDLE_STEP_MILLIS} ms at a time and
 * waiting for a policy tick to see the new time and its merges to end — only the tick moves
 * tombstones then. At every settled point the tombstones the store holds are at most those
 * flushed within the last D_th: one flushed longer ago is a violation. With
 * {@code -Dstrata.ds5.policy=lo1} (no tombstone trigger) the same run fails: tombstones stay.
 */
@SlowTest
class TombstonePersistenceTest {
    private static final long TTL_MILLIS = 2_000;
    /** Simulated time between two deletes. */
    private static final long STEP_MILLIS = 4;
    /** Deletes between two flushes: about 28 KiB of writes, under the 64 KiB memtable. */
    private static final int STEPS_PER_FLUSH = 25;
    /** Deletes in all: twice D_th of simulated time. */
    private static final int DELETES = (int) (2 * TTL_MILLIS / STEP_MILLIS);
    private static final long IDLE_STEP_MILLIS = 250;
    /**
     * Flushes between two settled points: merges run beside the writes in between (their
     * decisions see the clock as it moves), as they would in use.
     */
    private static final int FLUSHES_PER_CHECK = 4;

    /** The policy under test, noting the latest time a view showed it. */
    private static final class Observed extends ForwardingMergePolicy {
        final AtomicLong latestNow = new AtomicLong(Long.MIN_VALUE);

        Observed(MergePolicy delegate) {
            super(delegate);
        }

        @Override
        public List<MergeTask> pickMerges(TreeView tree) {
            latestNow.accumulateAndGet(tree.nowMillis(), Math::max);
            return delegate().pickMerges(tree);
        }
    }

    /** A delete and when (on the store's clock) the flush that wrote its tombstone ran. */
    private record Flushed(long atMillis, int deletesSoFar) {
    }

    @Test
    void everyTombstoneReachesTheLastLevelWithinTheDeadline(@TempDir Path dir) throws Exception {
        ManualClock clock = new ManualClock(1_000_000_000L);
        String name = System.getProperty("strata.ds5.policy", "tsa");
        Observed policy = new Observed(MergePolicies.create(name,
                Map.of("size-ratio", "4", "tombstone-ttl", TTL_MILLIS + "ms")));
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).maxImmutableMemtables(1)
                .blockCacheBytes(1 << 20).policyTickMillis(20).clock(clock).mergePolicy(policy).build();
        SplittableRandom random = new SplittableRandom(5);
        byte[] value = new byte[112];
        int keys = 60_000;
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < keys; i++) {
                random.nextBytes(value);
                store.put(key(i), value);
            }
            store.awaitMerges();
            assertTrue(store.stats().componentsPerLevel().length >= 3, "a tree of three levels or more: "
                    + store.stats());

            long start = clock.millis();
            List<Flushed> flushes = new ArrayList<>();
            List<String> violations = new ArrayList<>();
            long worstHeld = 0;
            for (int deleted = 0; deleted < DELETES; ) {
                // One delete of a key not deleted before, and puts to keep the tables busy.
                store.delete(key(deleted++ * 7L % keys));
                for (int p = 0; p < 8; p++) {
                    random.nextBytes(value);
                    store.put(key(keys + random.nextInt(keys)), value);
                }
                clock.advanceMillis(STEP_MILLIS);
                if (deleted % STEPS_PER_FLUSH == 0 || deleted == DELETES) {
                    store.flush(); // its tombstones are stamped with the clock's time now
                    flushes.add(new Flushed(clock.millis(), deleted));
                    if (flushes.size() % FLUSHES_PER_CHECK == 0 || deleted == DELETES) {
                        store.awaitMerges(); // the decisions after the flush, at the clock's time, and their merges
                        worstHeld = Math.max(worstHeld, check(store, clock.millis(), start, flushes, violations));
                    }
                }
            }
            // Idle: only the policy tick asks the policy now.
            long end = flushes.get(flushes.size() - 1).atMillis() + TTL_MILLIS + 1;
            while (clock.millis() < end) {
                long now = clock.advanceMillis(Math.min(IDLE_STEP_MILLIS, end - clock.millis()));
                awaitDecisionAt(policy, now);
                store.awaitMerges();
                worstHeld = Math.max(worstHeld, check(store, now, start, flushes, violations));
            }
            System.out.printf("%s, D_th %d ms: %d deletes over %d simulated ms in %d flushes, at most %d tombstones"
                    + " held, %d settled points over the bound%n", name, TTL_MILLIS, DELETES, DELETES * STEP_MILLIS,
                    flushes.size(), worstHeld, violations.size());
            assertTrue(worstHeld > 0, "deletes reached the tree");
            assertTrue(violations.isEmpty(), violations.size() + " settled points over the bound, first: "
                    + violations.subList(0, Math.min(3, violations.size())));
            assertEquals(0, store.stats().liveTombstones(), "every tombstone dropped at the last level");
        }
    }

    /**
     * At a settled point at {@code now}: the tombstones held must be at most the deletes whose
     * flush ran within the last D_th (a tombstone is due once its age passes D_th); records a
     * violation otherwise and returns the count held.
     */
    private static long check(LsmStore store, long now, long start, List<Flushed> flushes, List<String> violations) {
        long held = store.stats().liveTombstones();
        int total = flushes.get(flushes.size() - 1).deletesSoFar();
        int due = 0;
        for (Flushed f : flushes) {
            if (now - f.atMillis() > TTL_MILLIS) {
                due = f.deletesSoFar();
            }
        }
        if (held > total - due) {
            violations.add(String.format("at +%d ms: %d tombstones held, only %d flushed in the last %d ms",
                    now - start, held, total - due, TTL_MILLIS));
        }
        return held;
    }

    /** Waits (up to 30 s; the tick runs every 20 ms) until a view at {@code now} or later reached the policy. */
    private static void awaitDecisionAt(Observed policy, long now) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (policy.latestNow.get() < now) {
            assertTrue(System.nanoTime() < deadline, "no policy tick saw the clock at " + now + " within 30 s");
            Thread.sleep(2);
        }
    }

    private static byte[] key(long i) {
        return ByteBuffer.allocate(16).putLong(i * 0x9E3779B97F4A7C15L).putLong(i).array();
    }
}
