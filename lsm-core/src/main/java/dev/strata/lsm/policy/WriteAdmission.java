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
    STOP;

    /**
     * A slowdown depth for a policy that slows writes from one count of something (level-0
     * runs or files) and stops them at a higher one: 0 at {@code slowdownAt}, rising linearly
     * to 1 at {@code stopAt}, clamped to 0..1; 1 when the band is empty
     * ({@code stopAt <= slowdownAt}).
     *
     * @param count the count now
     * @param slowdownAt the count from which writes are slowed down
     * @param stopAt the count at which writes stop
     * @return the depth, from 0 to 1, for {@link MergePolicy#slowdownDepth}
     */
    public static double depthBetween(int count, int slowdownAt, int stopAt) {
        if (stopAt <= slowdownAt) {
            return 1.0;
        }
        double depth = (count - slowdownAt) / (double) (stopAt - slowdownAt);
        return Math.max(0.0, Math.min(1.0, depth));
    }
}
