package dev.strata.lsm.blockmerge;

import dev.strata.lsm.policy.SelectiveThresholds;
import dev.strata.lsm.sstable.BlockMergePlan;

import java.io.IOException;

/**
 * BlockDB's selective compaction (Alg. 4, FAMILIES.md 2.3): for each overlapped child table,
 * whether to merge the parent's entries into it in place (block compaction) or to rewrite it
 * (table compaction), decided from its {@link BlockMergePlan} in this order:
 * <ol>
 *   <li><b>too large</b>: the table's valid (live) size exceeds the level's maximum file
 *       size. The paper's Alg. 4 line 1 prints {@code S.size() < max_file_size[le]}; its prose
 *       says twice that table compaction is chosen when the valid size <em>exceeds</em> the
 *       threshold (files grow by appends up to it, then are split). Decision: the prose.</li>
 *   <li><b>mostly dead</b>: valid size ÷ file size below the level's minimum valid ratio
 *       (garbage collection).</li>
 *   <li><b>mostly dirty</b>: dirty bytes ÷ file size above the level's maximum dirty ratio
 *       (block compaction would write about as much and keep more space).</li>
 *   <li>otherwise <b>block compaction</b>.</li>
 * </ol>
 * L0 → L1 compactions always rewrite (L0 files overlap everything); the caller does not ask.
 * The thresholds are the SPI's {@link SelectiveThresholds}, which a policy attaches to its task.
 */
public final class SelectiveCompaction {
    private SelectiveCompaction() {
    }

    /** What to do with one overlapped child table. */
    public enum Decision {
        /** Rewrite: the valid size exceeds the level's maximum file size. */
        TABLE_TOO_LARGE,
        /** Rewrite: too little of the file is live. */
        TABLE_MOSTLY_DEAD,
        /** Rewrite: too much of the file would be rewritten anyway. */
        TABLE_MOSTLY_DIRTY,
        /** Merge in place. */
        BLOCK;

        /** Whether the table is rewritten. */
        public boolean rewrites() {
            return this != BLOCK;
        }
    }

    /** Computes a child table's {@link BlockMergePlan} (a walk of its slice of the input over its leaves). */
    @FunctionalInterface
    public interface PlanSource {
        /** The plan. */
        BlockMergePlan plan() throws IOException;
    }

    /**
     * The decision for a child table of {@code liveBytes} valid bytes in a file of
     * {@code fileBytes} ({@link BlockMergePlan#liveBytes(dev.strata.lsm.sstable.SSTableReader)},
     * {@link BlockMergePlan#fileBytes(dev.strata.lsm.sstable.SSTableReader)}): the same as
     * {@link #decide(BlockMergePlan, SelectiveThresholds)} on its plan, but the first two
     * branches need those sizes alone, so {@code plan} is asked only when neither holds (a
     * too large or mostly dead child is rewritten without walking its slice over its leaves).
     */
    public static Decision decide(long liveBytes, long fileBytes, SelectiveThresholds t, PlanSource plan)
            throws IOException {
        switch (t.rewrite(liveBytes, (double) liveBytes / fileBytes, 0)) {
            case TOO_LARGE:
                return Decision.TABLE_TOO_LARGE;
            case MOSTLY_DEAD:
                return Decision.TABLE_MOSTLY_DEAD;
            default:
                return decide(plan.plan(), t);
        }
    }

    /** The decision for a child table whose merge would look like {@code plan}. */
    public static Decision decide(BlockMergePlan plan, SelectiveThresholds t) {
        return switch (t.rewrite(plan.liveBytes(), plan.validRatio(), plan.dirtyRatio())) {
            case TOO_LARGE -> Decision.TABLE_TOO_LARGE;
            case MOSTLY_DEAD -> Decision.TABLE_MOSTLY_DEAD;
            case MOSTLY_DIRTY -> Decision.TABLE_MOSTLY_DIRTY;
            case NO -> Decision.BLOCK;
        };
    }
}
