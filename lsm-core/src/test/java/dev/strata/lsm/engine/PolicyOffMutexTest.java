package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The policy decides off the write mutex: while its pick is slow (here: blocked), writes
 * that fit in the memtable, reads and scans go on. Before, the flush job held the mutex
 * through the pick and every writer queued behind it.
 */
class PolicyOffMutexTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(UTF_8);
    }

    @Test
    void writesAndReadsGoOnWhileThePolicyIsDeciding() throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).mergePolicy(policy)
                .policyTickMillis(0).build();
        CountDownLatch deciding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 100; i++) {
                store.put(key(i), key(i));
            }
            policy.script.set(tree -> {
                deciding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return List.<MergeTask>of();
            });
            // The decision after this flush blocks in the policy (before, with the mutex held).
            CompletableFuture<Void> flush = CompletableFuture.runAsync(store::flush);
            assertTrue(deciding.await(10, TimeUnit.SECONDS), "the policy was asked after the flush");
            try {
                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                    for (int i = 100; i < 1100; i++) {
                        store.put(key(i), key(i));
                    }
                    for (int i = 0; i < 1100; i += 7) {
                        assertArrayEquals(key(i), store.get(key(i)));
                    }
                }, "writes waited for the policy's decision");
            } finally {
                release.countDown();
            }
            flush.get(30, TimeUnit.SECONDS);
            store.awaitMerges();
        }
    }
}
