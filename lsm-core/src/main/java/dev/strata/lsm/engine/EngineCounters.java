package dev.strata.lsm.engine;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
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
    /** Write groups the write slowdown delayed ({@link WritePacer}), and the delays computed for them. */
    final LongAdder delayedGroups = new LongAdder();
    final LongAdder writeDelayNanos = new LongAdder();
    final AtomicLong maxWriteDelayNanos = new AtomicLong();
    /** Tables prefix scans skipped because their prefix bloom said the prefix is absent. */
    final LongAdder prefixBloomSkips = new LongAdder();
    /** Merge operands written as the key's combined value by the successive-merge bound. */
    final LongAdder mergesCollapsed = new LongAdder();
    /** Children of block compactions by decision ({@code SelectiveCompaction.Decision} ordinal). */
    final LongAdder[] childDecisions = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    /** Bytes written by in-place merges (dirty and gap leaves, interior pages, bloom, footer). */
    final LongAdder inPlaceBytes = new LongAdder();
    /** Bytes of unreferenced pages released by hole punching. */
    final LongAdder punchedBytes = new LongAdder();
    /** Compaction chains of stall episodes; guarded by the engine's mutex. */
    final StallChains chains = new StallChains();
    /** Table bytes written into each level by flushes and merges (the deepest slot takes deeper levels). */
    private final AtomicLongArray writtenIntoLevel = new AtomicLongArray(32);

    /** Table bytes written by kind: flushes under "flush", merges under their task's kind label. */
    private final java.util.concurrent.ConcurrentHashMap<String, LongAdder> writtenByKind =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Counts a write group delayed by {@code nanos} (computed, not slept) by the write slowdown. */
    void writeDelayed(long nanos) {
        delayedGroups.increment();
        writeDelayNanos.add(nanos);
        maxWriteDelayNanos.accumulateAndGet(nanos, Math::max);
    }

    /** The write slowdown's delays so far. */
    dev.strata.lsm.WriteDelayStats writeDelays() {
        return new dev.strata.lsm.WriteDelayStats(delayedGroups.sum(), writeDelayNanos.sum(), maxWriteDelayNanos.get());
    }

    /** Counts {@code bytes} written by a flush ({@code MergeTask.FLUSH}) or a merge of {@code kind}. */
    void wroteAs(String kind, long bytes) {
        if (bytes > 0) {
            writtenByKind.computeIfAbsent(kind, k -> new LongAdder()).add(bytes);
        }
    }

    /** Table bytes written per kind since open, kinds in alphabetical order. */
    java.util.SortedMap<String, Long> writtenByKind() {
        java.util.TreeMap<String, Long> out = new java.util.TreeMap<>();
        writtenByKind.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    void wroteIntoLevel(int level, long bytes) {
        writtenIntoLevel.addAndGet(Math.min(level, writtenIntoLevel.length() - 1), bytes);
    }

    /** Bytes written into each level, up to the deepest level written. */
    long[] writtenByLevel() {
        long[] out = new long[writtenIntoLevel.length()];
        int n = 0;
        for (int i = 0; i < out.length; i++) {
            out[i] = writtenIntoLevel.get(i);
            if (out[i] != 0) {
                n = i + 1;
            }
        }
        return Arrays.copyOf(out, n);
    }
}
