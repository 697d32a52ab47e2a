package dev.strata.lsm.policy.spooky;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Spooky's unit B (the memtable size, from which C_1 = T·α·B) is the store's setting that
 * every view carries, not the largest flush it has seen: a flush larger than the memtable (a
 * close, a family's oversized batch) does not grow the tree's capacities for good.
 */
class SpookyMemtableSettingTest {
    private static final SpookyConfig CONFIG = SpookyConfig.defaults();

    private static ComponentView table(long id, long bytes) {
        return ComponentView.builder(new ComponentId(id, 0)).sizeBytes(bytes).entries(bytes, 0).userBytes(bytes)
                .keyRange(new byte[] {'a'}, new byte[] {'z'}).seqnos(id, id).creation(id, 0).build();
    }

    /** Flushes a {@code flushedBytes} table onto an empty tree, picks, and returns the state it keeps. */
    private static SpookyState afterFirstFlush(StoreSettings settings, long flushedBytes) {
        SpookyPolicy policy = new SpookyPolicy(CONFIG);
        TreeView empty = new TreeView(List.of(), 0, null, null, List.of(), 0, settings);
        policy.planFlush(empty, table(1, flushedBytes));
        byte[] state = policy.persistentState(empty);
        TreeView flushed = new TreeView(List.of(new LevelView(0, List.of(new RunView(List.of(table(1, flushedBytes)))))),
                1, state, null, List.of(), 0, settings);
        policy.pickMerges(flushed);
        SpookyState kept = new SpookyState();
        kept.load(policy.persistentState(flushed));
        return kept;
    }

    @Test
    void aFlushLargerThanTheMemtableDoesNotChangeTheUnit() {
        SpookyState s = afterFirstFlush(new StoreSettings(100), 5_000);
        assertEquals(100, s.memtableBytes);
        assertEquals(1, s.capacityLevel);
        assertEquals((long) CONFIG.sizeRatio() * CONFIG.l0CompactionTrigger() * 100, s.capacityBytes);
    }

    @Test
    void aViewWithoutSettingsStillLearnsTheUnitFromFlushes() {
        SpookyState s = afterFirstFlush(StoreSettings.UNKNOWN, 5_000);
        assertEquals(5_000, s.memtableBytes);
        assertEquals((long) CONFIG.sizeRatio() * CONFIG.l0CompactionTrigger() * 5_000, s.capacityBytes);
    }
}
