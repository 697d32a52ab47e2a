package dev.strata.lsm.bench.workload;

/**
 * Picks the record a request addresses. One instance per worker thread (not thread safe),
 * so that draws need no synchronisation and a seed replays a thread's exact sequence.
 */
public interface KeyChooser {
    /**
     * The next record number, in {@code [0, recordCount)}.
     *
     * @param recordCount records that exist now; it grows while a workload inserts
     */
    long next(long recordCount);
}
