package dev.strata.lsm.bench.workload;

import org.HdrHistogram.Histogram;

import java.util.Map;

/**
 * What one workload measured on one engine in one round.
 *
 * @param engine engine name
 * @param workload workload name
 * @param position the workload's place in the list (0 first)
 * @param distribution key distribution label; null for fills
 * @param ops requests counted in the throughput (readwhilewriting: the reads)
 * @param seconds from the first request to the last one finishing
 * @param backgroundOps readwhilewriting's writes, not counted in {@code ops}
 * @param latency all counted requests, nanoseconds
 * @param latencyByOperation every request including background writes, nanoseconds, by operation
 * @param misses reads (gets and read-modify-writes) that found no value
 * @param userBytesWritten key and value bytes the workload wrote
 * @param processBytesWritten bytes the process wrote from the start of the workload until the
 *     engine settled after it (-1 if unknown)
 * @param writeSource the /proc/self/io counter behind processBytesWritten
 * @param writeAmplification processBytesWritten / userBytesWritten; null when nothing was written
 * @param cumulativeWriteAmplification the same since the engine was opened; null before any write
 * @param settleSeconds the wait for flush and merges after a writing workload (not in {@code seconds})
 * @param disk the data directory after the workload (and settling)
 * @param liveBytes key and value bytes of the records present
 * @param spaceAmplification disk bytes (allocated) / live bytes; null when empty
 * @param spaceAmplificationApparent file lengths / live bytes; null when empty
 * @param peakDisk the data directory's largest usage sampled once a second during the
 *     workload and its settling (allocated blocks and file lengths, each at its own peak)
 * @param peakSpaceAmplification peakDisk (allocated where known) / live bytes at the end; null when empty
 * @param engineCounters the engine's own counters after the workload (the ingest workload adds its
 *     phases: {@code ingestFiles}, {@code ingestFileBytes}, {@code ingestWriteFilesSeconds},
 *     {@code ingestCallSeconds}, {@code ingestVerifiedKeys})
 * @param notSupported why the engine could not run the workload (nothing was measured), or null
 */
public record WorkloadResult(String engine, String workload, int position, String distribution, long ops,
                             double seconds, long backgroundOps, Histogram latency,
                             Map<Operation, Histogram> latencyByOperation, long misses, long userBytesWritten,
                             long processBytesWritten, String writeSource, Double writeAmplification,
                             Double cumulativeWriteAmplification, double settleSeconds, DiskUsage disk,
                             long liveBytes, Double spaceAmplification, Double spaceAmplificationApparent,
                             DiskUsage peakDisk, Double peakSpaceAmplification, Map<String, Object> engineCounters,
                             String notSupported) {

    /** True when the engine ran the workload. */
    public boolean supported() {
        return notSupported == null;
    }

    /** Requests per second. */
    public double opsPerSec() {
        return seconds <= 0 ? 0 : ops / seconds;
    }
}
