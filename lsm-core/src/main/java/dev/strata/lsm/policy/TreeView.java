package dev.strata.lsm.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The read-only picture of the tree a {@link MergePolicy} decides from: levels of runs of
 * components, the durable flush counter and the policy's own small durable state.
 * Immutable. The engine builds one from its current version; the simulator builds one
 * from simulated component sizes.
 *
 * <p>Position order: level 0 is the newest, and inside a level run 0 is the newest. For
 * any key, data in a newer position is newer (the stability invariant).
 */
public final class TreeView {

    /** Estimates how many bytes of a component fall inside a key range. */
    @FunctionalInterface
    public interface RangeEstimator {
        /**
         * Bytes of {@code component} whose keys lie in [from, to) ({@code null} bounds are open).
         *
         * @param component the component to estimate
         * @param from the first key of the range, inclusive, or null for no lower bound
         * @param to the end of the range, exclusive, or null for no upper bound
         * @return the estimated bytes, from 0 to the component's size
         */
        long bytesInRange(ComponentView component, byte[] from, byte[] to);
    }

    private final List<LevelView> levels;
    private final long flushCounter;
    private final byte[] policyState;
    private final RangeEstimator estimator;
    private final List<RunningMerge> running;
    private final long nowMillis;
    private final StoreSettings settings;

    /**
     * A view with no running merges, taken now; {@code estimator} null means key-range
     * interpolation.
     *
     * @param levels the levels, level 0 first
     * @param flushCounter completed flushes over the store's life
     * @param policyState the policy's state as last persisted (null: empty)
     * @param estimator how {@link #bytesInRange} estimates, or null for key-range interpolation
     */
    public TreeView(List<LevelView> levels, long flushCounter, byte[] policyState, RangeEstimator estimator) {
        this(levels, flushCounter, policyState, estimator, List.of(), System.currentTimeMillis());
    }

    /**
     * A view of {@code levels} while {@code running} merges execute, taken at {@code nowMillis}
     * (the store's clock; the simulator's own clock), its settings unknown.
     *
     * @param levels the levels, level 0 first
     * @param flushCounter completed flushes over the store's life
     * @param policyState the policy's state as last persisted (null: empty)
     * @param estimator how {@link #bytesInRange} estimates, or null for key-range interpolation
     * @param running the merges executing now (their inputs marked busy in {@code levels})
     * @param nowMillis the view's time, milliseconds since the epoch
     */
    public TreeView(List<LevelView> levels, long flushCounter, byte[] policyState, RangeEstimator estimator,
                    List<RunningMerge> running, long nowMillis) {
        this(levels, flushCounter, policyState, estimator, running, nowMillis, StoreSettings.UNKNOWN);
    }

    /**
     * A view of {@code levels} while {@code running} merges execute, taken at {@code nowMillis},
     * of a store with {@code settings} (the engine's configuration; a simulator's flush size).
     *
     * @param levels the levels, level 0 first
     * @param flushCounter completed flushes over the store's life
     * @param policyState the policy's state as last persisted (null: empty)
     * @param estimator how {@link #bytesInRange} estimates, or null for key-range interpolation
     * @param running the merges executing now (their inputs marked busy in {@code levels})
     * @param nowMillis the view's time, milliseconds since the epoch
     * @param settings the store's settings the policy may read
     */
    public TreeView(List<LevelView> levels, long flushCounter, byte[] policyState, RangeEstimator estimator,
                    List<RunningMerge> running, long nowMillis, StoreSettings settings) {
        this.settings = java.util.Objects.requireNonNull(settings, "settings");
        this.levels = List.copyOf(levels);
        this.flushCounter = flushCounter;
        this.policyState = policyState == null ? new byte[0] : policyState.clone();
        this.estimator = estimator == null ? KeyRangeInterpolation.INSTANCE : estimator;
        this.running = List.copyOf(running);
        this.nowMillis = nowMillis;
    }

    /**
     * Merges being executed while the policy decides (their inputs are also marked busy).
     *
     * @return the running merges (empty when none)
     */
    public List<RunningMerge> runningMerges() {
        return running;
    }

    /**
     * The time this view was taken, milliseconds since the epoch; time-based triggers compare
     * against it.
     *
     * @return the view's time, milliseconds since the epoch
     */
    public long nowMillis() {
        return nowMillis;
    }

    /**
     * The settings of the store the tree belongs to ({@link StoreSettings#UNKNOWN} for a view made
     * by hand).
     *
     * @return the store's settings
     */
    public StoreSettings settings() {
        return settings;
    }

    /**
     * The levels, level 0 first.
     *
     * @return the levels, level 0 first (unmodifiable)
     */
    public List<LevelView> levels() {
        return levels;
    }

    /**
     * Level {@code i}, or an empty level when the tree has fewer levels.
     *
     * @param i the level number, 0 or more
     * @return that level, or an empty level past the deepest one
     */
    public LevelView level(int i) {
        return i < levels.size() ? levels.get(i) : new LevelView(i, List.of());
    }

    /**
     * Number of completed flushes over the store's life (durable across restarts).
     *
     * @return the count of completed flushes
     */
    public long flushCounter() {
        return flushCounter;
    }

    /**
     * The policy's durable state as last persisted (empty when none).
     *
     * @return the persisted state bytes (empty array when none)
     */
    public byte[] policyState() {
        return policyState.clone();
    }

    /**
     * Every component, in position order (newest first).
     *
     * @return every component of every run of every level, newest first
     */
    public List<ComponentView> components() {
        List<ComponentView> all = new ArrayList<>();
        for (LevelView l : levels) {
            for (RunView r : l.runs()) {
                all.addAll(r.components());
            }
        }
        return Collections.unmodifiableList(all);
    }

    /**
     * Number of components in the whole tree.
     *
     * @return the number of components over all levels
     */
    public int componentCount() {
        int n = 0;
        for (LevelView l : levels) {
            n += l.componentCount();
        }
        return n;
    }

    /**
     * Estimated bytes of {@code component} inside [from, to).
     *
     * @param component a component of this tree
     * @param from the first key of the range, inclusive, or null for no lower bound
     * @param to the end of the range, exclusive, or null for no upper bound
     * @return the estimated bytes, from 0 to the component's size
     */
    public long bytesInRange(ComponentView component, byte[] from, byte[] to) {
        return estimator.bytesInRange(component, from, to);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("TreeView[flushes=").append(flushCounter);
        for (LevelView l : levels) {
            sb.append(", L").append(l.index()).append('=').append(l.runs());
        }
        if (!running.isEmpty()) {
            sb.append(", running=").append(running.size());
        }
        return sb.append(']').toString();
    }
}
