package dev.strata.lsm;

import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;

import java.util.Arrays;

/**
 * A point-in-time reading of a store's counters. Amplification figures are computed from
 * bytes actually counted by the IO layer.
 *
 * <ul>
 *   <li>{@link #writeAmplification()} = (flush bytes + merge bytes) / flush bytes: bytes
 *       written creating components per byte flushed (WAL and manifest excluded, as in the
 *       papers' cost models; they are reported separately).</li>
 *   <li>{@link #spaceAmplification()} = bytes of live component files / estimated live
 *       logical bytes. The estimate sums, over live components, the user key and value
 *       bytes scaled by the fraction of entries that are not tombstones; it counts a key
 *       once per component holding it, so it overestimates live data (and underestimates
 *       space amplification) when many keys are overwritten and not yet merged.</li>
 * </ul>
 */
public final class StoreStats {
    private final IoStats io;
    private final long liveComponentBytes;
    private final double liveLogicalBytes;
    private final int[] componentsPerLevel;
    private final long flushCount;
    private final long mergeCount;
    private final long stallNanos;
    private final long memtableBytes;
    private final long lastSequence;

    public StoreStats(IoStats io, long liveComponentBytes, double liveLogicalBytes, int[] componentsPerLevel,
                      long flushCount, long mergeCount, long stallNanos, long memtableBytes, long lastSequence) {
        this.io = io;
        this.liveComponentBytes = liveComponentBytes;
        this.liveLogicalBytes = liveLogicalBytes;
        this.componentsPerLevel = componentsPerLevel.clone();
        this.flushCount = flushCount;
        this.mergeCount = mergeCount;
        this.stallNanos = stallNanos;
        this.memtableBytes = memtableBytes;
        this.lastSequence = lastSequence;
    }

    /** Raw IO counters by purpose. */
    public IoStats io() {
        return io;
    }

    /** Bytes written for {@code purpose}. */
    public long bytesWritten(IoPurpose purpose) {
        return io.bytesWritten(purpose);
    }

    public long walBytesWritten() {
        return io.bytesWritten(IoPurpose.WAL);
    }

    public long flushBytesWritten() {
        return io.bytesWritten(IoPurpose.FLUSH);
    }

    public long mergeBytesWritten() {
        return io.bytesWritten(IoPurpose.MERGE);
    }

    public long manifestBytesWritten() {
        return io.bytesWritten(IoPurpose.MANIFEST);
    }

    /** (flush + merge bytes) / flush bytes; 0 before the first flush. */
    public double writeAmplification() {
        long flushed = flushBytesWritten();
        return flushed == 0 ? 0 : (double) (flushed + mergeBytesWritten()) / flushed;
    }

    /** Bytes of live component files / estimated live logical bytes; 0 when empty. */
    public double spaceAmplification() {
        return liveLogicalBytes <= 0 ? 0 : liveComponentBytes / liveLogicalBytes;
    }

    public long liveComponentBytes() {
        return liveComponentBytes;
    }

    public double liveLogicalBytes() {
        return liveLogicalBytes;
    }

    /** Components in each level, level 0 first. */
    public int[] componentsPerLevel() {
        return componentsPerLevel.clone();
    }

    /** Components in the whole tree. */
    public int componentCount() {
        return Arrays.stream(componentsPerLevel).sum();
    }

    public long flushCount() {
        return flushCount;
    }

    public long mergeCount() {
        return mergeCount;
    }

    /** Total time writers spent waiting for flushes, merges or the policy, in nanoseconds. */
    public long stallNanos() {
        return stallNanos;
    }

    /** Bytes held by the active and immutable memtables. */
    public long memtableBytes() {
        return memtableBytes;
    }

    public long lastSequence() {
        return lastSequence;
    }

    @Override
    public String toString() {
        return String.format("StoreStats[flushes=%d, merges=%d, components=%s, WA=%.3f, SA=%.3f, stall=%.1fms, "
                        + "wal=%d, flush=%d, merge=%d, manifest=%d]", flushCount, mergeCount,
                Arrays.toString(componentsPerLevel), writeAmplification(), spaceAmplification(), stallNanos / 1e6,
                walBytesWritten(), flushBytesWritten(), mergeBytesWritten(), manifestBytesWritten());
    }
}
