package dev.strata.lsm.policy;

/**
 * BlockDB's selective compaction thresholds for one level (seed 001, Alg. 4; FAMILIES.md 2.3),
 * attached to a {@link MergeMode#REUSE_BLOCKS} task with {@link MergeTask#reuseBlocks}: for
 * each child table the engine computes, from the child's interior pages and the parents'
 * keys alone, the child's valid size, valid ratio and dirty ratio, and rewrites the child
 * (table compaction, cut by the task's output spec) when, in this order, its valid size
 * exceeds {@code maxFileBytes} (too large), its valid ratio is below {@code minValidRatio}
 * (mostly dead) or its dirty ratio is above {@code maxDirtyRatio} (mostly dirty); otherwise
 * it merges in place. The paper gives no values ([NOT IN PAPER]); {@link #middleLevel} and
 * {@link #lastLevel} are the proposed defaults. Immutable.
 *
 * @param maxFileBytes valid size above which a table is rewritten (split)
 * @param minValidRatio valid ÷ file size below which a table is rewritten, 0 to 1
 * @param maxDirtyRatio dirty ÷ file size above which a table is rewritten, 0 to 1
 */
public record SelectiveThresholds(long maxFileBytes, double minValidRatio, double maxDirtyRatio) {
    /**
     * Creates a {@code SelectiveThresholds} from its components.
     *
     * @param maxFileBytes valid size above which a table is rewritten (split)
     * @param minValidRatio valid ÷ file size below which a table is rewritten, 0 to 1
     * @param maxDirtyRatio dirty ÷ file size above which a table is rewritten, 0 to 1
     */
    public SelectiveThresholds {
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

    /**
     * Middle levels favour block compaction: max dirty 0.5, min valid 0.5, max file 4 × target.
     *
     * @param targetFileBytes the level's target file size in bytes
     * @return new thresholds for a middle level
     */
    public static SelectiveThresholds middleLevel(long targetFileBytes) {
        return new SelectiveThresholds(4 * targetFileBytes, 0.5, 0.5);
    }

    /**
     * The last level favours table compaction: max dirty 0.2, min valid 0.8, max file 4 × target.
     *
     * @param targetFileBytes the level's target file size in bytes
     * @return new thresholds for the last level
     */
    public static SelectiveThresholds lastLevel(long targetFileBytes) {
        return new SelectiveThresholds(4 * targetFileBytes, 0.8, 0.2);
    }

    /** Whether, and why, selective compaction rewrites a child table whole ({@link #rewrite}). */
    public enum Rewrite {
        /** Merged in place, block by block. */
        NO,
        /** Its valid bytes exceed {@link #maxFileBytes}. */
        TOO_LARGE,
        /** Too little of it is live: valid ratio below {@link #minValidRatio}. */
        MOSTLY_DEAD,
        /** Too much of it would be rewritten anyway: dirty ratio above {@link #maxDirtyRatio}. */
        MOSTLY_DIRTY
    }

    /**
     * The one statement of the selective-compaction rule (seed 001, BlockDB, Alg. 4), checked
     * in this order: a child table is rewritten whole when its valid bytes exceed
     * {@link #maxFileBytes}, or too little of it is live, or too much of it would be rewritten
     * anyway; otherwise it is merged in place. The engine's block merge and the key-range
     * simulator both decide by it.
     *
     * @param liveBytes the child's valid bytes
     * @param validRatio the child's live bytes over its physical bytes
     * @param dirtyRatio the child's bytes the merge would rewrite over its physical bytes
     * @return {@link Rewrite#NO}, or the first reason that holds
     */
    public Rewrite rewrite(long liveBytes, double validRatio, double dirtyRatio) {
        if (liveBytes > maxFileBytes) {
            return Rewrite.TOO_LARGE;
        }
        if (validRatio < minValidRatio) {
            return Rewrite.MOSTLY_DEAD;
        }
        if (dirtyRatio > maxDirtyRatio) {
            return Rewrite.MOSTLY_DIRTY;
        }
        return Rewrite.NO;
    }

    @Override
    public String toString() {
        return "selective(max file " + maxFileBytes + ", min valid " + minValidRatio + ", max dirty " + maxDirtyRatio
                + ")";
    }
}
