package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.WriteAdmission;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A policy that stops writes must not be able to stop them for good. Found by
 * {@code strata-bench torture}: after a reopen with another policy, every merge the
 * {@code concurrent} policy asked for was rejected while it answered STOP, and the writer
 * waited for 117 s with every background thread idle. With no merge running or accepted and
 * no flush running, nothing could change the answer: the engine counts a policy error and
 * lets writes proceed.
 */
class AdmissionDeadlockTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(UTF_8);
    }

    @Test
    void writesProceedWhenThePolicyStopsThemWithNothingToRun() {
        // STOP always, and a merge that cannot be accepted (its input does not exist), each time.
        policy.admission.set(tree -> WriteAdmission.STOP);
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (int i = 0; i < 20_000; i++) {
                    if (i % 1000 == 0) {
                        policy.script.set(tree -> List.of(MergeTask.of(List.of(new ComponentId(999_999, 0)),
                                Placement.newRun(1), "a merge of nothing")));
                    }
                    store.put(key(i), key(i));
                }
            }, "writes waited for a merge that could never run");
            assertTrue(store.stats().flushCount() >= 5, "the writes filled several memtables: " + store.stats());
            assertTrue(store.stats().policyErrors() > 0, "the stuck STOP counts as a policy error: " + store.stats());
            for (int i = 0; i < 20_000; i += 97) {
                assertArrayEquals(key(i), store.get(key(i)));
            }
        }
    }

    /**
     * An Error thrown by the policy (not an exception) must not leave a decision pending for
     * good: writers wait for a pending decision before they switch a memtable.
     */
    @Test
    void writesProceedAfterThePolicyThrowsAnError() {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy)
                .policyTickMillis(0).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            policy.script.set(tree -> {
                throw new AssertionError("a policy bug");
            });
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (int i = 0; i < 20_000; i++) {
                    store.put(key(i), key(i));
                }
            }, "writes waited for a decision that had died");
            assertTrue(store.stats().flushCount() >= 5, "the writes filled several memtables: " + store.stats());
            for (int i = 0; i < 20_000; i += 97) {
                assertArrayEquals(key(i), store.get(key(i)));
            }
        }
    }
}
