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
     * Block compaction (seed 001): the inputs outside the target run (the parents) are
     * merged in place into the inputs inside it (the children). Each child keeps its file:
     * its clean leaves stay where they are, and dirty leaves, new interior pages, a bloom
     * filter and a footer are appended, making a new version of the same file. The
     * placement must be {@link Placement.Kind#INTO_RUN_OF} the children's run, the output
     * spec {@link OutputSpec#singleFile()}, there must be at least one parent and one child,
     * every child must be a table of format 2 or later, and every component of the target
     * run that a parent overlaps must be a child (else the result would not be stable).
     */
    REUSE_BLOCKS
}
