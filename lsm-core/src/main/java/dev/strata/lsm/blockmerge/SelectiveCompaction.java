package dev.strata.lsm.blockmerge;

import dev.strata.lsm.sstable.BlockMergePlan;

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

    /**
     * One level's thresholds. The paper gives no values (FAMILIES.md 2.3, [NOT IN PAPER]);
     * {@link #middleLevel} and {@link #lastLevel} are the proposed defaults, to be swept.
     *
     * @param maxFileBytes valid size above which a table is rewritten (split)
     * @param minValidRatio valid ÷ file size below which a table is rewritten, 0 to 1
     * @param maxDirtyRatio dirty ÷ file size above which a table is rewritten, 0 to 1
     */
    public record Thresholds(long maxFileBytes, double minValidRatio, double maxDirtyRatio) {
        public Thresholds {
            if (maxFileBytes <= 0) {
                throw new IllegalArgumentException("max file size must be positive, got " + maxFileBytes);
            }
            if (!(minValidRatio >= 0 && minValidRatio <= 1)) {
                throw new IllegalArgumentException("min valid ratio must be 0 to 1, got " + minValidRatio);
            }
            if (!(maxDirtyRatio >= 0 && maxDirtyRatio <= 1)) {
                throw new IllegalArgumentException("max dirty ratio must be 0 to 1, got " + maxDirtyRatio);
            }
        }

        /** Middle levels favour block compaction: max dirty 0.5, min valid 0.5, max file 4 × target. */
        public static Thresholds middleLevel(long targetFileBytes) {
            return new Thresholds(4 * targetFileBytes, 0.5, 0.5);
        }

        /** The last level favours table compaction: max dirty 0.2, min valid 0.8, max file 4 × target. */
        public static Thresholds lastLevel(long targetFileBytes) {
            return new Thresholds(4 * targetFileBytes, 0.8, 0.2);
        }
    }

    /** The decision for a child table whose merge would look like {@code plan}. */
    public static Decision decide(BlockMergePlan plan, Thresholds t) {
        if (plan.liveBytes() > t.maxFileBytes()) {
            return Decision.TABLE_TOO_LARGE;
        }
        if (plan.validRatio() < t.minValidRatio()) {
            return Decision.TABLE_MOSTLY_DEAD;
        }
        if (plan.dirtyRatio() > t.maxDirtyRatio()) {
            return Decision.TABLE_MOSTLY_DIRTY;
        }
        return Decision.BLOCK;
    }
}
