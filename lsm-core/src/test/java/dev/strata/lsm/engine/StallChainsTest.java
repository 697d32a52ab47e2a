package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StallChainStats;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.WriteAdmission;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compaction chains: what a stall episode waited for, by level. */
class StallChainsTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    @Test
    void anEpisodeRecordsTheMergesThatCompletedDuringIt() {
        StallChains c = new StallChains();
        c.mergeCompleted(1, 100); // outside an episode: not counted
        c.stallStarted();
        c.mergeCompleted(1, 1_000);
        c.stallStarted(); // the same episode
        c.mergeCompleted(3, 5_000);
        c.stallEnded();
        c.stallEnded(); // no episode open
        c.stallStarted();
        c.mergeCompleted(1, 10);
        c.stallEnded();
        StallChainStats s = c.stats();
        assertEquals(2, s.episodes());
        assertEquals(6_000, s.maxChainBytes());
        assertEquals(3_005, s.meanChainBytes(), 1e-9);
        assertEquals(2, s.maxChainLength());
        assertArrayEquals(new long[] {0, 1_000, 0, 5_000}, s.widestChainBytesPerLevel());
    }

    @Test
    void aStoreStoppedUntilAMergeEndsRecordsThatMergeInItsChain() {
        // Merges write slowly (each write of a merge output waits 20 ms), so a writer surely
        // waits for one however fast the machine builds tables.
        StorageIO slowMerges = new ForwardingStorageIO(new FileChannelStorageIO()) {
            @Override
            protected PageFile wrap(PageFile file) {
                if (file.purpose() != IoPurpose.MERGE) {
                    return file;
                }
                return new ForwardingStorageIO.ForwardingPageFile(file) {
                    @Override
                    public void write(ByteBuffer src, long position) throws IOException {
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        super.write(src, position);
                    }
                };
            }
        };
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy)
                .storageIO(slowMerges).build();
        // STOP while level 0 holds two runs; the script merges them into level 1.
        policy.admission.set(tree -> tree.level(0).runs().size() >= 2 ? WriteAdmission.STOP : WriteAdmission.GO);
        policy.standingScript.set(tree -> {
            if (tree.level(0).runs().stream().anyMatch(r -> r.components().stream().anyMatch(v -> v.busy()))) {
                return List.of();
            }
            if (tree.level(0).runs().size() < 2) {
                return List.of();
            }
            List<ComponentId> l0 = new ArrayList<>();
            tree.level(0).runs().forEach(r -> r.components().forEach(v -> l0.add(v.id())));
            return List.of(MergeTask.rewrite(l0, Placement.newRun(1), OutputSpec.singleFile(), "two runs"));
        });
        try (LsmStore store = LsmStore.open(dir, config)) {
            // Until a writer had to wait for the merge (each time level 0 reaches two runs, a
            // writer needing a fresh memtable meanwhile waits for the merge; bounded).
            for (int i = 0; i < 300_000 && store.stats().stallChains().maxChainBytes() == 0; i++) {
                store.put(TestKeys.padded("k", i, 8).getBytes(UTF_8), ("v".repeat(60) + i).getBytes(UTF_8));
            }
            StallChainStats s = store.stats().stallChains();
            assertTrue(s.episodes() >= 1, s.toString());
            assertTrue(s.maxChainBytes() > 0 && s.widestChainBytesPerLevel().length >= 2
                    && s.widestChainBytesPerLevel()[1] == s.maxChainBytes(), "the merge into level 1: " + s);
            assertEquals(1, s.maxChainLength(), s.toString());
            assertEquals(0, store.stats().policyErrors());
        }
    }
}
