package dev.strata.lsm;

/**
 * Receives notice of background work as it completes, on the background thread that did
 * it; keep the callbacks short and never call back into the store from them. Used by
 * benchmarks (write amplification over time) and to validate policies against the
 * simulator with the engine's real flush sizes.
 */
public interface StoreListener {

    /**
     * A memtable was flushed.
     *
     * @param flushNumber the store's flush counter after this flush (1 for the first ever)
     * @param tableBytes bytes of the table the flush wrote
     * @param mergedBytes bytes written by merging that table with existing components in the
     *     same job (0 when the flush became a component of its own)
     */
    default void flushed(long flushNumber, long tableBytes, long mergedBytes) {
    }

    /**
     * A merge chosen by the policy completed.
     *
     * @param inputs components merged
     * @param bytesWritten bytes of the output tables
     */
    default void merged(int inputs, long bytesWritten) {
    }

    /**
     * A merge chosen by the policy completed, with how long it ran (from its start on a
     * background thread to its installation). The engine calls this one; by default it calls
     * {@link #merged(int, long)}.
     *
     * @param inputs components merged
     * @param bytesWritten bytes of the output tables (for a block compaction, the bytes appended in place)
     * @param nanos the merge's duration
     */
    default void merged(int inputs, long bytesWritten, long nanos) {
        merged(inputs, bytesWritten);
    }

    /**
     * A merge chosen by the policy starts running on a background thread (crash tests use it
     * to kill a process in the middle of a particular kind of merge).
     *
     * @param reason the policy's reason for the merge ({@code MergeTask.reason()})
     */
    default void mergeStarted(String reason) {
    }

    /**
     * The merge announced by {@link #mergeStarted} with the same reason has ended: installed
     * ({@code installed} true) or failed and left to a retry.
     *
     * @param reason the merge task's reason, as {@link #mergeStarted} was given it
     * @param installed true when the merge's output was installed
     */
    default void mergeEnded(String reason, boolean installed) {
    }
}
