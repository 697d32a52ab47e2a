package dev.strata.lsm.policy;

/** How a merge writes its output. */
public enum MergeMode {
    /** Rewrite every input entry into new files. */
    REWRITE,
    /**
     * Reuse clean leaves of an input table in place and append only dirty leaves and a new
     * index (block compaction). Engines that cannot reuse blocks fall back to REWRITE.
     */
    REUSE_BLOCKS
}
