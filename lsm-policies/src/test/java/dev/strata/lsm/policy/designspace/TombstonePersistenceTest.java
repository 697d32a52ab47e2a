package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DS5's last clause on the engine: under {@code tsa}, with the policy tick on, every
 * tombstone reaches the last level (where it is dropped) within D_th of being flushed. The
 * store reports only how many tombstones its components hold, so the check is a bound: at
 * every sample, the tombstones still held are at most the deletes issued within the last
 * D_th plus a slack (a memtable's residence before its flush, the tick, the merges' own time);
 * every older one must be gone. Deletes run for twice D_th (and until 1,001 were issued, so a
 * loaded machine that issues fewer in the time does not fail the count) interleaved with puts that keep
 * flushes frequent, then the store idles — only the tick moves tombstones then. With
 * {@code -Dstrata.ds5.policy=lo1} (no tombstone trigger) the same run fails: tombstones stay.
 */
class TombstonePersistenceTest {
    private static final long TTL_MILLIS = 2_000;
    private static final long SLACK_MILLIS = 1_500;
    /** Deletes issued at least, however long they take. */
    private static final int MIN_DELETES = 1_001;

    @Test
    void everyTombstoneReachesTheLastLevelWithinTheDeadline(@TempDir Path dir) throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).maxImmutableMemtables(1)
                .blockCacheBytes(1 << 20).policyTickMillis(100)
                .mergePolicy(System.getProperty("strata.ds5.policy", "tsa"), Map.of("size-ratio", "4", "tombstone-ttl", TTL_MILLIS + "ms")).build();
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

            List<Long> deleteTimes = new ArrayList<>();
            List<String> violations = new ArrayList<>();
            long start = System.currentTimeMillis();
            long nextSample = start;
            long worstHeld = 0;
            int deleted = 0;
            // Deletes for 2 D_th and until MIN_DELETES were issued (a loaded machine issues fewer
            // in the time), then idles for D_th plus twice the slack after the last one.
            long deletesEnd = -1;
            long end = Long.MAX_VALUE;
            while (true) {
                long now = System.currentTimeMillis();
                if (deletesEnd < 0 && (now < start + 2 * TTL_MILLIS || deleted < MIN_DELETES)) {
                    // One delete of a key not deleted before, and puts to keep the memtable flushing.
                    store.delete(key(deleted++ * 7 % keys));
                    deleteTimes.add(now);
                    for (int p = 0; p < 8; p++) {
                        random.nextBytes(value);
                        store.put(key(keys + random.nextInt(keys)), value);
                    }
                    Thread.sleep(0, 200_000);
                } else {
                    if (deletesEnd < 0) {
                        deletesEnd = now;
                        end = deletesEnd + TTL_MILLIS + 2 * SLACK_MILLIS;
                    }
                    if (now >= end) {
                        break;
                    }
                    Thread.sleep(20);
                }
                if (now >= nextSample) {
                    nextSample = now + 100;
                    long held = store.stats().liveTombstones();
                    long cutoff = now - TTL_MILLIS - SLACK_MILLIS;
                    long recent = deleteTimes.stream().filter(t -> t > cutoff).count();
                    worstHeld = Math.max(worstHeld, held);
                    if (held > recent) {
                        violations.add(String.format("at +%d ms: %d tombstones held, only %d deleted in the last %d ms",
                                now - start, held, recent, TTL_MILLIS + SLACK_MILLIS));
                    }
                }
            }
            System.out.printf("tsa, D_th %d ms: %d deletes over %d ms, at most %d tombstones held, %d samples over "
                    + "the bound%n", TTL_MILLIS, deleted, deletesEnd - start, worstHeld, violations.size());
            assertTrue(deleted >= MIN_DELETES && worstHeld > 0, "deletes reached the tree: " + deleted + ", " + worstHeld);
            assertTrue(violations.isEmpty(), violations.size() + " samples over the bound, first: "
                    + violations.subList(0, Math.min(3, violations.size())));
            assertEquals(0, store.stats().liveTombstones(), "every tombstone dropped at the last level");
        }
    }

    private static byte[] key(long i) {
        return ByteBuffer.allocate(16).putLong(i * 0x9E3779B97F4A7C15L).putLong(i).array();
    }
}
