package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every call into the merge policy, one at a time (a policy need not be thread safe), never
 * under the engine's mutex; the policy's persistent state as the manifest records it; and
 * policy errors — a plan or task the engine cannot use, or a policy that throws — counted
 * and logged, never silent.
 */
final class PolicyBridge {
    private static final System.Logger LOG = System.getLogger(PolicyBridge.class.getName());

    /**
     * What one decision of the policy returned: with a SLOW_DOWN, how deep into its slowdown
     * band the tree is ({@link MergePolicy#slowdownDepth}; 0 otherwise, not asked).
     */
    record Decision(List<MergeTask> tasks, WriteAdmission admission, double slowdownDepth, byte[] state) {
    }

    private final MergePolicy policy;
    private final String policyName;
    private final EngineCounters counters;
    private final ReentrantLock policyLock = new ReentrantLock();
    private volatile byte[] state;

    PolicyBridge(MergePolicy policy, String policyName, byte[] initialState, EngineCounters counters) {
        this.policy = policy;
        this.policyName = policyName;
        this.state = initialState;
        this.counters = counters;
    }

    String policyName() {
        return policyName;
    }

    /** The policy's persistent state, as the next version edit records it. */
    byte[] state() {
        return state;
    }

    /** The flush plan for {@code flushed}; a policy that throws gets a new newest level-0 run, counted as an error. */
    FlushPlan planFlush(TreeView view, ComponentView flushed) {
        try {
            policyLock.lock();
            try {
                return policy.planFlush(view, flushed);
            } finally {
                policyLock.unlock();
            }
        } catch (RuntimeException e) {
            error("merge policy " + policyName + " failed to plan a flush", e);
            return FlushPlan.newComponent(Placement.newRun(0), "fallback after policy failure");
        }
    }

    /**
     * The most bytes of one flushed table ({@link MergePolicy#flushTableBytes}); a policy that
     * throws or answers below 1 gets one table per flush, counted as an error.
     */
    long flushTableBytes() {
        long bytes;
        try {
            policyLock.lock();
            try {
                bytes = policy.flushTableBytes();
            } finally {
                policyLock.unlock();
            }
        } catch (RuntimeException e) {
            error("merge policy " + policyName + " failed to size a flush's tables", e);
            return Long.MAX_VALUE;
        }
        if (bytes < 1) {
            error("merge policy " + policyName + " asked for flushed tables of " + bytes + " bytes (must be >= 1); "
                    + "writing one table", null);
            return Long.MAX_VALUE;
        }
        return bytes;
    }

    /**
     * One decision: the merges to start, the write admission and the state to persist. A
     * policy that throws (or overflows its stack) is reported by the exception, for the
     * caller to count.
     */
    Decision decide(TreeView view) {
        policyLock.lock();
        try {
            List<MergeTask> tasks = policy.pickMerges(view);
            WriteAdmission admission = policy.admission(view);
            double depth = admission == WriteAdmission.SLOW_DOWN ? policy.slowdownDepth(view) : 0.0;
            byte[] s = policy.persistentState(view);
            return new Decision(tasks, admission, depth, s);
        } finally {
            policyLock.unlock();
        }
    }

    /** The policy's plan of a manual compaction of [from, to); what the policy throws is the caller's to report. */
    List<MergeTask> planCompaction(TreeView view, byte[] from, byte[] to) {
        policyLock.lock();
        try {
            List<MergeTask> tasks = policy.planCompaction(view, from, to);
            return tasks == null ? List.of() : tasks;
        } finally {
            policyLock.unlock();
        }
    }

    /** The policy's placement of ingested tables; what the policy throws is the caller's to report. */
    Placement placeIngest(TreeView view, List<dev.strata.lsm.policy.ComponentView> tables) {
        policyLock.lock();
        try {
            return policy.placeIngest(view, tables);
        } finally {
            policyLock.unlock();
        }
    }

    /** Adopts the state of a decision the engine acted on. */
    void adopt(Decision d) {
        state = d.state() == null ? new byte[0] : d.state();
    }

    /** Counts and logs a policy error. */
    void error(String message, Throwable cause) {
        counters.policyErrors.incrementAndGet();
        if (cause == null) {
            LOG.log(System.Logger.Level.ERROR, message);
        } else {
            LOG.log(System.Logger.Level.ERROR, message, cause);
        }
    }

    /** Counts a policy error whose logging the caller does (to log each distinct one once). */
    void countError() {
        counters.policyErrors.incrementAndGet();
    }
}
