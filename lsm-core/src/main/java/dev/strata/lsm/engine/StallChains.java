package dev.strata.lsm.engine;

import dev.strata.lsm.StallChainStats;

import java.util.Arrays;

/**
 * Records compaction chains (see {@link StallChainStats}): a stall episode starts when a
 * writer first waits on a full memtable backlog or a STOP, merges completed during it add
 * their input bytes at the level they wrote into, and it ends when the writer gets a
 * memtable. Guarded by the engine's mutex.
 */
final class StallChains {
    private long episodeStart = -1;
    private long[] episodeBytes = new long[0];
    private long episodes;
    private long maxStallNanos;
    private long maxChainBytes;
    private long sumChainBytes;
    private int maxChainLength;
    private long[] widest = new long[0];

    /** A writer waits for room. Mutex held. */
    void stallStarted() {
        if (episodeStart < 0) {
            episodeStart = System.nanoTime();
            episodeBytes = new long[0];
        }
    }

    /** A merge into {@code level} of {@code inputBytes} completed. Mutex held. */
    void mergeCompleted(int level, long inputBytes) {
        if (episodeStart < 0) {
            return;
        }
        if (level >= episodeBytes.length) {
            episodeBytes = Arrays.copyOf(episodeBytes, level + 1);
        }
        episodeBytes[level] += inputBytes;
    }

    /** The writer got room: the episode, if one was open, ends. Mutex held. */
    void stallEnded() {
        if (episodeStart < 0) {
            return;
        }
        long nanos = System.nanoTime() - episodeStart;
        episodeStart = -1;
        long bytes = 0;
        int length = 0;
        for (long b : episodeBytes) {
            bytes += b;
            length += b > 0 ? 1 : 0;
        }
        episodes++;
        maxStallNanos = Math.max(maxStallNanos, nanos);
        sumChainBytes += bytes;
        maxChainLength = Math.max(maxChainLength, length);
        if (bytes > maxChainBytes || episodes == 1) {
            maxChainBytes = Math.max(maxChainBytes, bytes);
            widest = episodeBytes.clone();
        }
    }

    /** The totals so far. Mutex held. */
    StallChainStats stats() {
        return episodes == 0 ? StallChainStats.NONE : new StallChainStats(episodes, maxStallNanos, maxChainBytes,
                (double) sumChainBytes / episodes, maxChainLength, widest);
    }
}
