package dev.strata.lsm.policy;

/** What a policy says about accepting writes right now. */
public enum WriteAdmission {
    /** Accept writes. */
    GO,
    /** Accept writes, but delay each one a little so merges can catch up. */
    SLOW_DOWN,
    /**
     * Do not start another flush: writers wait once the memtable is full, until a merge
     * finishes and the policy says otherwise. Bounded-depth policies use this to hold
     * their bound at every instant.
     */
    STOP
}
