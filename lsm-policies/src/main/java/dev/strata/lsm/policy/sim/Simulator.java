package dev.strata.lsm.policy.sim;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs a merge policy — the same object the engine runs — over a simulated tree of
 * component lengths, applying every decision instantly, and measures write amplification
 * and component counts under the bounded-depth paper's cost model (or the engine's
 * flush-then-merge accounting). After each flush it asks the policy for merges until it
 * wants none. Not thread safe.
 */
public final class Simulator {
    /** Merges asked for after one flush before the policy is deemed to loop. */
    private static final int MAX_MERGES_PER_FLUSH = 10_000;
    private static final int MAX_SERIES_POINTS = 4000;

    private final String policyName;
    private final PolicyParameters params;
    private final MergePolicy policy;
    private final Semantics semantics;
    private final FlushLengths lengths;
    /** What every view shows the policy: the memtable is the largest flush's length. */
    private final StoreSettings settings;
    private Consumer<String> decisions = s -> { };
    private long componentOverhead;

    /**
     * Simulates the registered policy {@code name} with raw parameters.
     *
     * @param name      a registered policy's name
     * @param rawParams its raw parameters ({@code PolicyParameters.resolve} parses them)
     * @param semantics how bytes written are counted
     * @param lengths   each flush's length
     * @return the simulator
     */
    public static Simulator of(String name, Map<String, String> rawParams, Semantics semantics, FlushLengths lengths) {
        MergePolicyFactory f = MergePolicies.find(name);
        PolicyParameters p = PolicyParameters.resolve(name, f.parameters(), rawParams);
        return new Simulator(name, p, f.create(p), semantics, lengths);
    }

    /**
     * A simulator of {@code policy} (not shared: the simulator calls it from one thread, and
     * one simulator runs on one thread).
     *
     * @param policyName the policy's name, for reports
     * @param params     the policy's parameters, for reports
     * @param policy     the policy, fresh
     * @param semantics  how bytes written are counted
     * @param lengths    each flush's length
     */
    public Simulator(String policyName, PolicyParameters params, MergePolicy policy, Semantics semantics,
                     FlushLengths lengths) {
        this.policyName = policyName;
        this.params = params;
        this.policy = policy;
        this.semantics = semantics;
        this.lengths = lengths;
        this.settings = new StoreSettings(lengths.maxLength());
    }

    /**
     * Models a fixed number of bytes every component carries besides its data (an engine's
     * footer, index root, partly filled last page): a merge of j components then creates
     * one of length sum - (j - 1) x overhead. 0, the default, is the paper's model, where
     * lengths simply add up.
     *
     * @param bytes the overhead per component, at least 0
     * @return this simulator
     */
    public Simulator componentOverhead(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("component overhead must be >= 0, got " + bytes);
        }
        this.componentOverhead = bytes;
        return this;
    }

    /**
     * Receives one line per flush describing what the policy did (for golden tests and tracing).
     *
     * @param sink called with each line, on the simulating thread
     * @return this simulator
     */
    public Simulator onDecision(Consumer<String> sink) {
        this.decisions = sink;
        return this;
    }

    /**
     * Simulates {@code flushes} flushes.
     *
     * @param flushes     the number of flushes
     * @param checkpoints flush counts at which to record figures (ascending, each &lt;= flushes)
     * @return the write amplification and component counts, overall and at each checkpoint
     */
    public SimulationResult run(long flushes, long[] checkpoints) {

        long[] cps = checkpoints.clone();
        Arrays.sort(cps);
        SimulatedTree tree = new SimulatedTree();
        byte[] state = new byte[0];
        double written = 0;
        double flushed = 0;
        double countSum = 0;
        int maxCount = 0;
        int nextCheckpoint = 0;
        List<SimulationResult.Checkpoint> recorded = new ArrayList<>();
        List<SimulationResult.Point> series = new ArrayList<>();
        long seriesStep = Math.max(1, flushes / MAX_SERIES_POINTS);
        StringBuilder line = new StringBuilder();
        for (long t = 1; t <= flushes; t++) {
            long len = lengths.length(t);
            flushed += len;
            TreeView view = tree.view(t - 1, state, settings);
            ComponentView flush = tree.newComponent(len, t, t);
            FlushPlan plan = policy.planFlush(view, flush);
            line.setLength(0);
            line.append("flush ").append(t).append(':');
            for (MergeTask task : plan.mergesFirst()) {
                written += merge(tree, task, line, componentOverhead);
            }
            if (plan.merges()) {
                long sum = len;
                long minSeq = t;
                for (ComponentId id : plan.mergeWith()) {
                    ComponentView c = require(tree, id);
                    sum += c.sizeBytes() - componentOverhead;
                    minSeq = Math.min(minSeq, c.minSeqno());
                }
                written += semantics == Semantics.MODEL ? sum : len + sum;
                tree.apply(plan.mergeWith(), tree.newComponent(sum, minSeq, t), plan.placement());
                line.append(" merge flush with ").append(plan.mergeWith().size()).append(" newest");
            } else {
                written += len;
                tree.apply(List.of(), flush, plan.placement());
                line.append(" new component");
            }
            maxCount = Math.max(maxCount, tree.componentCount());
            state = policy.persistentState(tree.view(t, state, settings));
            for (int round = 0; ; round++) {
                List<MergeTask> tasks = policy.pickMerges(tree.view(t, state, settings));
                if (tasks.isEmpty()) {
                    break;
                }
                if (round >= MAX_MERGES_PER_FLUSH) {
                    throw new IllegalStateException(policyName + " keeps asking for merges after flush " + t);
                }
                for (MergeTask task : tasks) {
                    written += merge(tree, task, line, componentOverhead);
                }
                state = policy.persistentState(tree.view(t, state, settings));
            }
            int count = tree.componentCount();
            countSum += count;
            line.append(" -> ").append(tree.describe());
            decisions.accept(line.toString());
            double wa = written / flushed;
            if ((t - 1) % seriesStep == 0 || t == flushes) {
                series.add(new SimulationResult.Point(t, wa, count, countSum / t));
            }
            while (nextCheckpoint < cps.length && cps[nextCheckpoint] == t) {
                recorded.add(new SimulationResult.Checkpoint(t, wa, countSum / t));
                nextCheckpoint++;
            }
        }
        return new SimulationResult(policyName, params.asMap(), flushes, semantics, lengths.spec(),
                flushes == 0 ? 0 : written / flushed, flushes == 0 ? 0 : countSum / flushes, maxCount,
                recorded, series);
    }

    private static ComponentView require(SimulatedTree tree, ComponentId id) {
        ComponentView c = tree.find(id);
        if (c == null) {
            throw new IllegalStateException("policy named component " + id + ", which does not exist");
        }
        return c;
    }

    /** Applies a merge task; returns bytes written. */
    private static long merge(SimulatedTree tree, MergeTask task, StringBuilder line, long overhead) {
        List<ComponentId> inputs = task.inputs();
        long sum = overhead;
        long minSeq = Long.MAX_VALUE;
        long maxSeq = Long.MIN_VALUE;
        for (ComponentId id : inputs) {
            ComponentView c = require(tree, id);
            sum += c.sizeBytes() - overhead;
            minSeq = Math.min(minSeq, c.minSeqno());
            maxSeq = Math.max(maxSeq, c.maxSeqno());
        }
        tree.apply(inputs, tree.newComponent(sum, minSeq, maxSeq), task.placement());
        line.append(" merge ").append(inputs.size()).append(';');
        return sum;
    }
}
