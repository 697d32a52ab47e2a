package dev.strata.lsm.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's running totals that {@link dev.strata.lsm.StoreStats} reports: flushes and
 * merges done, block compaction decisions, policy errors (each also logged by whoever found it), and time writers spent
 * stalled. Thread safe.
 */
final class EngineCounters {
    final AtomicLong flushes = new AtomicLong();
    final AtomicLong merges = new AtomicLong();
    final AtomicLong policyErrors = new AtomicLong();
    final LongAdder stallNanos = new LongAdder();
    /** Children of block compactions by decision ({@code SelectiveCompaction.Decision} ordinal). */
    final LongAdder[] childDecisions = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    /** Bytes written by in-place merges (dirty and gap leaves, interior pages, bloom, footer). */
    final LongAdder inPlaceBytes = new LongAdder();
    /** Bytes of unreferenced pages released by hole punching. */
    final LongAdder punchedBytes = new LongAdder();
    /** Compaction chains of stall episodes; guarded by the engine's mutex. */
    final StallChains chains = new StallChains();
}
