package dev.strata.lsm.io;

/**
 * Why bytes move between memory and storage. Every byte read or written by Strata is
 * attributed to exactly one purpose, so that write and space amplification are computed
 * from counted bytes rather than estimated.
 */
public enum IoPurpose {
    /** Write-ahead log appends and recovery reads. */
    WAL,
    /** Memtable flushes writing new components. */
    FLUSH,
    /** Merges (compactions): reading inputs and writing outputs. */
    MERGE,
    /** Manifest and CURRENT file. */
    MANIFEST,
    /** User reads: point lookups and scans. */
    READ,
    /** Anything else (tools, tests, metadata probes). */
    OTHER
}
