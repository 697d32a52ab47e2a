/**
 * Block compaction (BlockDB, seed 001): in-place merges of a parent level's entries into the
 * overlapped child tables, one sub-task per child. The table layer ({@code
 * dev.strata.lsm.sstable.BlockMergeWriter}, {@code BlockMergePlan}, {@code TableLiveness})
 * does the work on one file; this package cuts the input among the children and runs the
 * sub-tasks.
 */
package dev.strata.lsm.blockmerge;
