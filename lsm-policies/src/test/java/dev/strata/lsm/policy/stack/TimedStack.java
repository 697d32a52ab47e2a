package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A discrete-event run of a stack policy in which merges take time: flushes of
 * {@code flushBytes} arrive once per time unit, merges run on {@code threads} merge
 * threads at {@code bytesPerUnit} each (queued tasks wait, their inputs busy), and a flush
 * waits while the policy's admission says STOP, as the engine's writers do. The policy is
 * asked for merges after every flush and every merge completion, and for admission after
 * the merges it picked have started (AsterixDB asks {@code isMergeLagging} when a flush
 * wants to proceed). If writers are stopped while no merge runs or waits and the policy
 * starts none, writers would wait forever: the run throws {@link Hang}.
 *
 * <p>The simulator in {@code policy.sim} applies merges instantly and so cannot show flow
 * control; this harness exists for that.
 */
final class TimedStack {
    /** Writers stopped with nothing that could ever release them. */
    static final class Hang extends RuntimeException {
        Hang(String message) {
            super(message);
        }
    }

    /** One component, oldest-first order kept by the list that holds it. */
    private static final class Comp {
        final long id;
        final long size;
        final long minSeq;
        final long maxSeq;
        boolean busy;

        Comp(long id, long size, long minSeq, long maxSeq) {
            this.id = id;
            this.size = size;
            this.minSeq = minSeq;
            this.maxSeq = maxSeq;
        }
    }

    private record Job(List<Long> inputs, long bytes) {
    }

    /** What a run observed. */
    record Result(long flushes, int maxComponents, int maxSmallComponents, double endTime, long mergedBytes) {
    }

    private final MergePolicy policy;
    private final long flushBytes;
    private final double bytesPerUnit;
    private final int threads;
    private final long smallLimit;
    private final List<Comp> stack = new ArrayList<>();
    private final Deque<Job> queued = new ArrayDeque<>();
    private final List<Job> running = new ArrayList<>();
    private final List<Double> finishAt = new ArrayList<>();
    private long nextId = 1;

    /**
     * @param smallLimit components at most this large count as "small" in {@link Result#maxSmallComponents}
     */
    TimedStack(String policyName, Map<String, String> params, long flushBytes, double bytesPerUnit, int threads,
               long smallLimit) {
        MergePolicyFactory f = MergePolicies.find(policyName);
        this.policy = f.create(PolicyParameters.resolve(policyName, f.parameters(), params));
        this.flushBytes = flushBytes;
        this.bytesPerUnit = bytesPerUnit;
        this.threads = threads;
        this.smallLimit = smallLimit;
    }

    Result run(long flushes) {
        double now = 0;
        double nextFlush = 1;
        long done = 0;
        int maxCount = 0;
        int maxSmall = 0;
        long merged = 0;
        boolean stopped = false;
        while (done < flushes) {
            int soonest = -1;
            for (int i = 0; i < finishAt.size(); i++) {
                if (soonest < 0 || finishAt.get(i) < finishAt.get(soonest)) {
                    soonest = i;
                }
            }
            if (stopped && soonest < 0) {
                throw new Hang("writers stopped with no merge running after " + done + " flushes: " + sizes());
            }
            if (soonest >= 0 && (stopped || finishAt.get(soonest) <= nextFlush)) {
                now = Math.max(now, finishAt.get(soonest));
                merged += complete(running.remove(soonest));
                finishAt.remove(soonest);
            } else {
                now = Math.max(now, nextFlush);
                Comp c = new Comp(nextId, flushBytes, nextId, nextId);
                nextId++;
                stack.add(c);
                done++;
                nextFlush = now + 1;
            }
            maxCount = Math.max(maxCount, stack.size());
            maxSmall = Math.max(maxSmall, (int) stack.stream().filter(c -> c.size <= smallLimit).count());
            for (MergeTask t : policy.pickMerges(view(done))) {
                start(t);
            }
            startQueued(now);
            stopped = policy.admission(view(done)) == WriteAdmission.STOP;
        }
        return new Result(done, maxCount, maxSmall, now, merged);
    }

    private void start(MergeTask t) {
        Set<Long> ids = new HashSet<>();
        for (ComponentId id : t.inputs()) {
            ids.add(id.fileNumber());
        }
        int first = -1;
        int last = -1;
        long bytes = 0;
        for (int i = 0; i < stack.size(); i++) {
            Comp c = stack.get(i);
            if (ids.contains(c.id)) {
                if (c.busy) {
                    throw new IllegalStateException("task " + t + " uses busy component " + c.id);
                }
                first = first < 0 ? i : first;
                last = i;
                bytes += c.size;
            }
        }
        if (first < 0 || last - first + 1 != ids.size()) {
            throw new IllegalStateException("task " + t + " is not a contiguous run of " + sizes());
        }
        for (int i = first; i <= last; i++) {
            stack.get(i).busy = true;
        }
        queued.add(new Job(List.copyOf(ids), bytes));
    }

    private void startQueued(double now) {
        while (running.size() < threads && !queued.isEmpty()) {
            Job j = queued.poll();
            running.add(j);
            finishAt.add(now + j.bytes / bytesPerUnit);
        }
    }

    /** Replaces the job's inputs (contiguous: merges only take idle runs, flushes only append) by their merge. */
    private long complete(Job j) {
        Set<Long> ids = new HashSet<>(j.inputs);
        int at = -1;
        for (int i = 0; i < stack.size(); i++) {
            if (ids.contains(stack.get(i).id)) {
                at = i;
                break;
            }
        }
        List<Comp> inputs = stack.subList(at, at + ids.size());
        Comp out = new Comp(nextId++, j.bytes, inputs.get(0).minSeq, inputs.get(inputs.size() - 1).maxSeq);
        inputs.clear();
        stack.add(at, out);
        return j.bytes;
    }

    private TreeView view(long flushes) {
        List<RunView> runs = new ArrayList<>();
        for (int i = stack.size() - 1; i >= 0; i--) {
            Comp c = stack.get(i);
            runs.add(new RunView(List.of(ComponentView.builder(new ComponentId(c.id, 0)).sizeBytes(c.size)
                    .entries(1, 0).userBytes(c.size).keyRange(new byte[] {0}, new byte[] {(byte) 0xff})
                    .seqnos(c.minSeq, c.maxSeq).creation(c.id, 0).busy(c.busy).build())));
        }
        return new TreeView(List.of(new LevelView(0, runs)), flushes, null, null);
    }

    private String sizes() {
        StringBuilder sb = new StringBuilder("[");
        for (Comp c : stack) {
            sb.append(sb.length() > 1 ? " " : "").append(c.size).append(c.busy ? "*" : "");
        }
        return sb.append(']').toString();
    }
}
