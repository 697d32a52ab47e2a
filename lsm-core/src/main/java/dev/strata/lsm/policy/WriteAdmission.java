package dev.strata.lsm.policy;

/** What a policy says about accepting writes right now. */
public enum WriteAdmission {
    /** Accept writes. */
    GO,
    /**
     * Accept writes, but pace them so merges can catch up: each write group is delayed by its
     * bytes over the store's delayed write rate, which falls as the policy's
     * {@link MergePolicy#slowdownDepth} nears 1 (RocksDB's {@code delayed_write_rate}). A
     * slowdown never holds writers for good, so the engine keeps it even when no merge or
     * flush is running.
     */
    SLOW_DOWN,
    /**
     * Do not start another flush: writers wait once the memtable is full, until a merge
     * finishes and the policy says otherwise. Bounded-depth policies use this to hold
     * their bound at every instant.
     */
    STOP
}
