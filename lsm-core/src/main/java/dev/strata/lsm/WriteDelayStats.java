package dev.strata.lsm;

/**
 * The write slowdown's delays ({@link StoreConfig#delayedWriteRate()}): while the merge policy
 * answered {@link dev.strata.lsm.policy.WriteAdmission#SLOW_DOWN}, the write groups that had to
 * wait and how long the engine asked each to wait (its bytes over the rate, less what the
 * time since the previous group paid for). These are the delays computed, not the time slept:
 * that is in {@link StoreStats#stallNanos()} with every other wait. Immutable.
 *
 * @param delayedGroups write groups that were delayed
 * @param delayNanos the delays asked for, in all
 * @param maxDelayNanos the longest delay asked of one group
 */
public record WriteDelayStats(long delayedGroups, long delayNanos, long maxDelayNanos) {
    /** No group delayed. */
    public static final WriteDelayStats NONE = new WriteDelayStats(0, 0, 0);

    /**
     * Creates a {@code WriteDelayStats} from its components.
     *
     * @param delayedGroups write groups that were delayed
     * @param delayNanos the delays asked for, in all
     * @param maxDelayNanos the longest delay asked of one group
     * @throws IllegalArgumentException if a figure is negative
     */
    public WriteDelayStats {
        if (delayedGroups < 0 || delayNanos < 0 || maxDelayNanos < 0) {
            throw new IllegalArgumentException("write delay figures must be >= 0, were " + delayedGroups + ", "
                    + delayNanos + " and " + maxDelayNanos);
        }
    }
}
