package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A policy's SLOW_DOWN paces write groups by their bytes over the store's delayed write rate
 * (RocksDB's {@code delayed_write_rate}); it is not LevelDB's one millisecond a write group,
 * which held one writer to about 1,000 puts a second whatever their size (issue 36, the
 * zstd-bottommost stall).
 */
class WriteSlowdownTest {
    private static final int PUTS = 4_000;

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

    /**
     * A merge held before it writes, so the policy's SLOW_DOWN stays in force (a slowdown with
     * a merge running is never overridden), then {@value #PUTS} single puts of about 130 bytes:
     * at the default 16 MiB/s their bytes are worth about 31 ms of delay. The old rule waited
     * one millisecond for each, at least 4 s in all.
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

                long stallBefore = store.stats().stallNanos();
                for (int i = 0; i < PUTS; i++) {
                    store.put(key(10 + i), value(i));
                }
                long stalled = store.stats().stallNanos() - stallBefore;
                assertTrue(stalled < TimeUnit.SECONDS.toNanos(2), "writers waited " + stalled / 1e6 + " ms for "
                        + PUTS + " puts of about 130 bytes under SLOW_DOWN (16 MiB/s: about 31 ms)");
            } finally {
                releaseMerge.countDown();
            }
        }
    }
}
