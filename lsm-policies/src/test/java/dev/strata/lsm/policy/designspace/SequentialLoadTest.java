package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policies.RecordingPolicy;
import dev.strata.lsm.policy.TreeView;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 29, item 2: a sequential load of 60,000 800-byte records with 256 KiB memtables
 * under {@code rr} and {@code blockdb}. Each flush is a level-0 run over keys past every
 * other; the level-0 consolidation into the level's oldest run overlaps nothing there, so it
 * anchors on a table of that run which it does not consume, and the saturation trigger moves
 * that table (the run's only one) down to level 1 while the consolidation runs. The finished
 * consolidation — up to 24 tables merged — was then thrown away as a policy error
 * ("placement anchor ... is not in level 0") and level 0 grew to 25 runs. Every merge must
 * be installed (no policy error, no merge ended without its install) and level 0 stay
 * bounded (the {@code nio} storage; lsm-core's {@code AnchorRunGoneTest} pins the race itself).
 */
class SequentialLoadTest {
    private static final int RECORDS = 60_000;
    private static final int VALUE_BYTES = 800;
    /**
     * The most runs level 0 may hold: writers stop while it holds {@code level0-stop-runs}
     * (20) and a merge runs, and then only the memtables already switched out (at most
     * {@link StoreConfig#DEFAULT_MAX_IMMUTABLE_MEMTABLES}) still flush; one more for the
     * decision that starts a merge with none running, whose admission is still GO. A
     * consolidation thrown away leaves nothing running, so writes go on and the level grows
     * past it (49 and 68 runs before the fix).
     */
    private static final int MAX_LEVEL0_RUNS = 20 + StoreConfig.DEFAULT_MAX_IMMUTABLE_MEMTABLES + 1;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rr", "blockdb"})
    void everyMergeOfASequentialLoadIsInstalled(String preset, @TempDir Path dir) {
        RecordingPolicy<Void> policy = RecordingPolicy.of(preset, Map.of());
        Queue<RecordingPolicy.Decision<Void>> decisions = policy.decisions();
        Queue<String> notInstalled = new ConcurrentLinkedQueue<>();
        StoreConfig config = StoreConfig.builder().memtableBytes(256 << 10).storageIO("nio")
                .mergePolicy(policy).listener(new StoreListener() {
                    @Override
                    public void mergeEnded(String reason, boolean installed) {
                        if (!installed) {
                            notInstalled.add(reason);
                        }
                    }
                }).build();
        StoreStats stats;
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < RECORDS; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            store.awaitMerges();
            stats = store.stats();
            for (int i = 0; i < RECORDS; i += 97) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
        }
        int maxLevel0Runs = 0;
        for (RecordingPolicy.Decision<Void> d : decisions) {
            maxLevel0Runs = Math.max(maxLevel0Runs, level0Runs(d.view()));
        }
        assertEquals(List.of(), List.copyOf(notInstalled), "merges ended without being installed: " + stats);
        assertEquals(0, stats.policyErrors(), "policy errors: " + stats);
        assertTrue(maxLevel0Runs <= MAX_LEVEL0_RUNS, "level 0 held " + maxLevel0Runs + " runs: " + stats);
        assertTrue(stats.componentsPerLevel().length >= 2, "data went below level 0: " + stats);
    }

    private static int level0Runs(TreeView v) {
        return v.levels().isEmpty() ? 0 : v.level(0).runs().size();
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte) i);
        ByteBuffer.wrap(v).putInt(i);
        return v;
    }
}
