package dev.strata.lsm.kafka;

import org.apache.kafka.common.TopicPartition;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The bookkeeping of a store's coalesced commits (docs/kafka-streams.md, "Coalesced commits"):
 * the interval ({@link StrataStoreConfigs#COMMIT_COALESCE_MS_CONFIG}, or a test's override),
 * when the store last wrote a commit, and the offsets of the commits held in memory since
 * then, merged (the latest per partition). The store decides what else a held commit needs
 * (buffered writes, no unlogged restore waiting); this class answers the timing and keeps the
 * held offsets.
 *
 * <p>Not thread safe: the owning store's lock guards it. One per store object, reset at each
 * {@code init}.
 */
final class CommitCoalescing {
    private final Map<TopicPartition, Long> held = new HashMap<>();
    private long intervalNanos;
    /** Set by tests: replaces {@link #intervalNanos}. */
    private Long intervalOverride;
    /** When the last commit was written ({@link System#nanoTime()}); valid when {@link #written}. */
    private long lastWriteNanos;
    private boolean written;

    /** Forgets every held commit and the last written one, and takes the configured interval (at {@code init}). */
    void reset(long intervalNanos) {
        held.clear();
        written = false;
        this.intervalNanos = intervalNanos;
    }

    /**
     * Replaces the configured interval (tests; 0: every commit is written).
     *
     * @throws IllegalArgumentException if {@code nanos} is negative
     */
    void override(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("the coalescing interval cannot be negative, was " + nanos);
        }
        intervalOverride = nanos;
    }

    /**
     * Whether the timing allows holding a commit of {@code offsets} at {@code now}: coalescing
     * is on, a commit was written less than the interval ago, and {@code offsets} names at
     * least one partition and removes none (a null offset).
     */
    boolean timely(Map<TopicPartition, Long> offsets, long now) {
        long interval = intervalOverride != null ? intervalOverride : intervalNanos;
        if (interval <= 0 || !written || now - lastWriteNanos >= interval || offsets.isEmpty()) {
            return false;
        }
        for (Long offset : offsets.values()) {
            if (offset == null) {
                return false;
            }
        }
        return true;
    }

    /** Holds {@code offsets} (merged over those already held). */
    void hold(Map<TopicPartition, Long> offsets) {
        held.putAll(offsets);
    }

    /** Whether a commit is held. */
    boolean holds() {
        return !held.isEmpty();
    }

    /** The held offsets, merged (an unmodifiable view; empty when none is held). */
    Map<TopicPartition, Long> held() {
        return Collections.unmodifiableMap(held);
    }

    /**
     * The offsets a commit of {@code offsets} writes: {@code offsets} over the held ones, or
     * {@code offsets} itself when nothing is held or it removes every offset (empty).
     */
    Map<TopicPartition, Long> withHeld(Map<TopicPartition, Long> offsets) {
        if (held.isEmpty() || offsets.isEmpty()) {
            return offsets;
        }
        Map<TopicPartition, Long> merged = new HashMap<>(held);
        merged.putAll(offsets);
        return merged;
    }

    /** A commit was written at {@code now}: nothing is held any more. */
    void written(long now) {
        held.clear();
        written = true;
        lastWriteNanos = now;
    }

    /** The held offsets were written outside a commit (a spill, a restore batch) or dropped (close). */
    void releaseHeld() {
        held.clear();
    }
}
