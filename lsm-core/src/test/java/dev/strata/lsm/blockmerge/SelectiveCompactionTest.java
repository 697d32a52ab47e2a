package dev.strata.lsm.blockmerge;

import dev.strata.lsm.blockmerge.SelectiveCompaction.Decision;
import dev.strata.lsm.policy.SelectiveThresholds;
import dev.strata.lsm.sstable.BlockMergePlan;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BL3 (decision part): each branch of selective compaction, in the paper's order. */
class SelectiveCompactionTest {
    static final long MB = 1 << 20;
    final SelectiveThresholds middle = SelectiveThresholds.middleLevel(2 * MB);
    final SelectiveThresholds last = SelectiveThresholds.lastLevel(2 * MB);

    /** A plan for a file of {@code file} bytes, {@code live} of them live, {@code dirty} of them dirty. */
    static BlockMergePlan plan(long file, long live, long dirty) {
        return new BlockMergePlan(100, (int) (dirty / 4096), dirty, 10, live, file);
    }

    @Test
    void tooLargeComesFirst() {
        // 9 MiB live > 4 x 2 MiB, even though it is also mostly dead and mostly dirty.
        assertEquals(Decision.TABLE_TOO_LARGE, SelectiveCompaction.decide(plan(30 * MB, 9 * MB, 29 * MB), middle));
        // Exactly at the maximum is not too large (the prose: "exceeds").
        assertEquals(Decision.BLOCK, SelectiveCompaction.decide(plan(8 * MB, 8 * MB, MB), middle));
    }

    @Test
    void mostlyDeadComesBeforeMostlyDirty() {
        assertEquals(Decision.TABLE_MOSTLY_DEAD, SelectiveCompaction.decide(plan(10 * MB, 4 * MB, 9 * MB), middle));
        assertEquals(Decision.BLOCK, SelectiveCompaction.decide(plan(10 * MB, 5 * MB, MB), middle));
    }

    @Test
    void mostlyDirtyThenBlock() {
        assertEquals(Decision.TABLE_MOSTLY_DIRTY, SelectiveCompaction.decide(plan(4 * MB, 4 * MB, 2 * MB + 1), middle));
        assertEquals(Decision.BLOCK, SelectiveCompaction.decide(plan(4 * MB, 4 * MB, 2 * MB), middle));
    }

    @Test
    void theLastLevelFavoursRewriting() {
        BlockMergePlan p = plan(4 * MB, 3 * MB, MB);
        assertEquals(Decision.BLOCK, SelectiveCompaction.decide(p, middle));
        assertEquals(Decision.TABLE_MOSTLY_DEAD, SelectiveCompaction.decide(p, last));
        BlockMergePlan q = plan(4 * MB, 4 * MB, MB);
        assertEquals(Decision.TABLE_MOSTLY_DIRTY, SelectiveCompaction.decide(q, last));
        assertTrue(Decision.TABLE_MOSTLY_DIRTY.rewrites());
        assertFalse(Decision.BLOCK.rewrites());
    }

    @Test
    void thePlanIsComputedOnlyWhenTheSizesDoNotDecide() throws Exception {
        int[] asked = {0};
        BlockMergePlan[] plans = {plan(30 * MB, 9 * MB, 29 * MB), plan(10 * MB, 4 * MB, 9 * MB),
                plan(4 * MB, 4 * MB, 2 * MB + 1), plan(4 * MB, 4 * MB, 2 * MB), plan(4 * MB, 3 * MB, MB)};
        for (SelectiveThresholds t : new SelectiveThresholds[] {middle, last}) {
            for (BlockMergePlan p : plans) {
                asked[0] = 0;
                Decision lazy = SelectiveCompaction.decide(p.liveBytes(), p.fileBytes(), t, () -> {
                    asked[0]++;
                    return p;
                });
                Decision full = SelectiveCompaction.decide(p, t);
                assertEquals(full, lazy, p + " " + t);
                // Too large and mostly dead follow from the sizes: no walk of the slice over the leaves.
                boolean bySizes = full == Decision.TABLE_TOO_LARGE || full == Decision.TABLE_MOSTLY_DEAD;
                assertEquals(bySizes ? 0 : 1, asked[0], p + " " + t);
            }
        }
    }

    @Test
    void badThresholdsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new SelectiveThresholds(0, 0.5, 0.5));
        assertThrows(IllegalArgumentException.class, () -> new SelectiveThresholds(MB, 1.5, 0.5));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SelectiveThresholds(MB, 0.5, -1));
        assertTrue(e.getMessage().contains("max dirty ratio"), e.getMessage());
    }
}
