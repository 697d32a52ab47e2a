package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Write traffic per level ({@link StoreStats#bytesWrittenByLevel()}): where flushes and merges wrote. */
class LevelTrafficTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    @Test
    void flushesCountAtLevelZeroAndMergesAtTheirTargetAndTheSumIsTheTableBytesWritten() {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).build();
        // Level 0's runs merge into level 1 when there are three; level 1 merges into level 2
        // when it holds two runs.
        policy.standingScript.set(tree -> {
            if (tree.components().stream().anyMatch(v -> v.busy())) {
                return List.of();
            }
            for (int level = 0; level <= 1; level++) {
                if (tree.level(level).runs().size() >= 3 - level) {
                    List<ComponentId> ids = new ArrayList<>();
                    tree.level(level).runs().forEach(r -> r.components().forEach(v -> ids.add(v.id())));
                    return List.of(MergeTask.rewrite(ids, Placement.newRun(level + 1), OutputSpec.singleFile(),
                            "level " + level + " full"));
                }
            }
            return List.of();
        });
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 20_000; i++) {
                store.put(TestKeys.padded("k", (i * 7919) % 20_000, 8).getBytes(UTF_8), ("v".repeat(60) + i).getBytes(UTF_8));
            }
            store.flush();
            store.awaitMerges();
            StoreStats s = store.stats();
            long[] byLevel = s.bytesWrittenByLevel();
            assertTrue(byLevel.length == 3 && byLevel[0] > 0 && byLevel[1] > 0 && byLevel[2] > 0,
                    Arrays.toString(byLevel));
            assertEquals(s.flushBytesWritten(), byLevel[0], "every flush went to level 0");
            assertEquals(s.mergeBytesWritten(), byLevel[1] + byLevel[2], "merge bytes by target level");
        }
    }
}
