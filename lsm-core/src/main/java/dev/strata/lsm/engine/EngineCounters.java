package dev.strata.lsm.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's running totals that {@link dev.strata.lsm.StoreStats} reports: flushes and
 * merges done, policy errors (each also logged by whoever found it), and time writers spent
 * stalled. Thread safe.
 */
final class EngineCounters {
    final AtomicLong flushes = new AtomicLong();
    final AtomicLong merges = new AtomicLong();
    final AtomicLong policyErrors = new AtomicLong();
    final LongAdder stallNanos = new LongAdder();
}
