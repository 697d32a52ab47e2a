package dev.strata.lsm.policy;

/**
 * How a merge produces its output. The engine honours every mode it accepts and rejects a
 * task whose mode it cannot execute as a policy error; it never silently substitutes one
 * mode for another.
 */
public enum MergeMode {
    /** Read every input entry and write the merged result into new files cut by the task's {@link OutputSpec}. */
    REWRITE,
    /**
     * Metadata-only move: the input files join the target placement unchanged (no byte is
     * read or written). Legal only when the moved components overlap no component that stays
     * in the receiving run and the result keeps the stability invariant; the task's output
     * spec must be {@link OutputSpec#singleFile()} because files keep their boundaries.
     */
    MOVE,
    /**
     * Block compaction: reuse clean leaves of an input table in place and append only dirty
     * leaves and a new index to the same file. Part of the contract; an engine without
     * block reuse rejects such a task as a policy error naming the mode.
     */
    REUSE_BLOCKS
}
