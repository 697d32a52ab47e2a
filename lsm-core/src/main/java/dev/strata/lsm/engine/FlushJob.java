package dev.strata.lsm.engine;

import dev.strata.lsm.StoreListener;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.merge.OutputCutter;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentViews;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a memtable as a table and installs it as the policy plans (LevelDB's
 * {@code WriteLevel0Table} plus the plan): first any merges the plan needs, then the table
 * at the planned placement, or the merge of the table with the planned components. Used by
 * the flush lane and by recovery; holds no state between flushes.
 */
final class FlushJob {
    private final EngineMutex mutex;
    private final VersionSet versions;
    private final TableOutput output;
    private final ObsoleteFiles obsolete;
    private final PolicyBridge policy;
    private final MergeScheduler scheduler;
    private final MergeJob mergeJob;
    private final Snapshots snapshots;
    private final EngineCounters counters;
    private final StoreListener listener;
    /** The store's background jobs, whose queued merges a flush waiting for them runs itself. */
    private final BackgroundThreads threads;

    FlushJob(EngineMutex mutex, VersionSet versions, TableOutput output, ObsoleteFiles obsolete, PolicyBridge policy,
             MergeScheduler scheduler, MergeJob mergeJob, Snapshots snapshots, EngineCounters counters,
             StoreListener listener, BackgroundThreads threads) {
        this.mutex = mutex;
        this.versions = versions;
        this.output = output;
        this.obsolete = obsolete;
        this.policy = policy;
        this.scheduler = scheduler;
        this.mergeJob = mergeJob;
        this.snapshots = snapshots;
        this.counters = counters;
        this.listener = listener;
        this.threads = threads;
    }

    /**
     * Writes memtable {@code m} at {@code cut} as tables of at most the policy's
     * {@link dev.strata.lsm.policy.MergePolicy#flushTableBytes} each (one table by default),
     * adjacent in key order, keeping of each key only the versions that the cut's snapshots or
     * a new read could see: the newest, and the newest at or below each snapshot. Every version
     * in {@code m} is at or below the cut's visible sequence number, so a snapshot taken later
     * sees the newest — except the part of a write group that failed while it was inserted
     * (see {@link WriteQueue}), which lies above it and is left out. Tombstones stay: older
     * data for their keys may lie in components below. Returns an empty list if nothing is left.
     */
    List<Component> write(Memtable m, FlushCut cut) throws IOException {
        return write(m, cut, policy.flushTableBytes());
    }

    /**
     * {@link #write(Memtable, FlushCut)} as one table whatever the policy's table size (an
     * atomic flush of several families records one table per family); null if nothing is left.
     */
    Component writeOne(Memtable m, FlushCut cut) throws IOException {
        List<Component> out = write(m, cut, Long.MAX_VALUE);
        return out.isEmpty() ? null : out.get(0);
    }

    private List<Component> write(Memtable m, FlushCut cut, long tableBytes) throws IOException {
        long visible = cut.visible();
        InternalIterator it = new SequenceBoundIterator(m.iterator(), visible);
        it.seekToFirst();
        OutputSpec spec = tableBytes == Long.MAX_VALUE ? OutputSpec.singleFile() : OutputSpec.maxFileBytes(tableBytes);
        return List.copyOf(output.write(it, m.rangeTombstones().visibleAt(visible), IoPurpose.FLUSH,
                new OutputCutter(spec, List.of(), List.of()), new VersionRetention(cut.snapshots(), false), 0, false));
    }

    /**
     * Records a flush that left no table (every entry was above the visible sequence
     * number, or the memtable was empty): the log number and last sequence number move on.
     */
    void installNothing(long nextSegment, long maxSeq) throws IOException {
        versions.logAndApply(base -> new VersionSet.Change(base.levels(), List.of(), List.of(),
                base.flushCounter(), policy.state(), nextSegment, maxSeq));
    }

    /**
     * Installs a flush's tables as the policy plans; the edit moves the log number to
     * {@code nextSegment} and the last sequence number to {@code maxSeq}. A merged flushed
     * table's file is dropped, never having been visible.
     */
    void install(List<Component> flushed, long nextSegment, long maxSeq) throws IOException {
        install(flushed, nextSegment, maxSeq, true);
    }

    /**
     * {@link #install(List, long, long)} of one table; with {@code settle} false the flushed
     * table stays a pending output after a failure (no sweep deletes it: an atomic flush's
     * committed table is installed again by a retry), and the caller settles it after a success.
     */
    void install(Component flushed, long nextSegment, long maxSeq, boolean settle) throws IOException {
        install(List.of(flushed), nextSegment, maxSeq, settle);
    }

    /**
     * Installs the tables one flush wrote (adjacent in key order, at least one) as the policy
     * plans, in one version edit: as one run at the planned placement, or merged, all of them,
     * with the planned components. {@code settle} as in {@link #install(Component, long, long, boolean)}.
     */
    void install(List<Component> flushed, long nextSegment, long maxSeq, boolean settle) throws IOException {
        if (flushed.isEmpty()) {
            throw new IllegalArgumentException("a flush installs at least one table");
        }
        long flushedBytes = 0;
        for (Component c : flushed) {
            flushedBytes += c.meta().sizeBytes();
        }
        Claimed claimed = claimPlan(flushed);
        FlushPlan plan = claimed.plan;
        try {
            for (int i = 0; i < plan.mergesFirst().size(); i++) {
                MergeTask task = plan.mergesFirst().get(i);
                long start = System.nanoTime();
                long bytes = mergeJob.merge(task, claimed.firstInputs.get(i), claimed.firstBottommost.get(i),
                        claimed.snapshots, null, 0, 0, Layouts.RunAt.NONE);
                counters.merges.incrementAndGet();
                counters.wroteIntoLevel(task.placement().level(), bytes);
                counters.wroteAs(task.kindLabel(), bytes);
                listener.merged(task.inputs().size(), bytes, System.nanoTime() - start);
            }
            if (!plan.merges()) {
                Placement p = plan.placement();
                versions.logAndApply(base -> {
                    List<List<Run>> levels;
                    try {
                        levels = Layouts.apply(base, Set.of(), flushed, p, versions::newRunId);
                        Layouts.checkChange(base, flushed, flushed, levels);
                    } catch (Layouts.PolicyError e) {
                        policy.error("merge policy " + policy.policyName() + " placed a flush badly ("
                                + e.getMessage() + "); using a new newest run of level 0", null);
                        levels = Layouts.apply(base, Set.of(), flushed, Placement.newRun(0), versions::newRunId);
                    }
                    return new VersionSet.Change(levels, flushed, List.of(), base.flushCounter() + 1,
                            policy.state(), nextSegment, maxSeq);
                });
                counters.wroteIntoLevel(p.level(), flushedBytes);
                counters.wroteAs(MergeTask.FLUSH, flushedBytes);
                listener.flushed(versions.current().flushCounter(), flushedBytes, 0);
            } else {
                List<Component> inputs = new ArrayList<>(claimed.mergeInputs);
                inputs.addAll(0, flushed);
                MergeTask task = MergeTask.rewrite(plan.mergeWith(), plan.placement(), plan.output(), plan.reason());
                long bytes = mergeJob.merge(task, inputs, claimed.mergeBottommost, claimed.snapshots, flushed.get(0),
                        nextSegment, maxSeq, Layouts.RunAt.NONE);
                for (Component c : flushed) {
                    obsolete.deleteUninstalled(c.meta().fileNumber());
                }
                counters.merges.incrementAndGet();
                counters.wroteIntoLevel(plan.placement().level(), flushedBytes + bytes);
                counters.wroteAs(MergeTask.FLUSH, flushedBytes);
                counters.wroteAs(task.kindLabel(), bytes);
                listener.flushed(versions.current().flushCounter(), flushedBytes, bytes);
            }
        } finally {
            mutex.lock();
            try {
                scheduler.release(claimed, claimed.ids, claimed.anchors);
                if (settle) {
                    for (Component c : flushed) {
                        obsolete.settled(c.meta().fileNumber());
                    }
                }
                mutex.signalBackground();
            } finally {
                mutex.unlock();
            }
        }
    }

    /** A flush plan whose inputs this flush has marked busy. */
    private record Claimed(FlushPlan plan, Set<ComponentId> ids, List<Component> mergeInputs, boolean mergeBottommost,
                           List<List<Component>> firstInputs, List<Boolean> firstBottommost, long[] snapshots,
                           List<ComponentId> anchors) {
    }

    /**
     * Asks the policy for the flush plan and claims its inputs, waiting while any of them
     * is in a running merge. An unusable plan is a policy error: the flush then becomes a
     * new newest run of level 0.
     */
    private Claimed claimPlan(List<Component> flushed) {
        mutex.lock();
        try {
            while (true) {
                Version v = versions.current();
                TreeView view = scheduler.treeView(v, flushed.toArray(new Component[0]));
                ComponentView fv = ComponentViews.ofFlush(flushed);
                // The policy plans without the mutex (a decision on the decider may hold the
                // policy; writers must not wait for either); the plan is then checked against
                // the version current again, and made anew if that changed meanwhile.
                FlushPlan plan;
                mutex.unlock();
                try {
                    plan = policy.planFlush(view, fv);
                } finally {
                    mutex.lock();
                }
                if (versions.current() != v) {
                    continue;
                }
                Set<ComponentId> ids = new HashSet<>(plan.mergeWith());
                plan.mergesFirst().forEach(t -> ids.addAll(t.inputs()));
                String problem = null;
                for (ComponentId id : ids) {
                    if (v.find(id) == null) {
                        problem = "component " + id + " does not exist";
                    }
                }
                if (problem == null && ids.stream().anyMatch(scheduler::held)) {
                    // A merge the plan needs to build on is still running: wait for it. If it
                    // is still queued (a shared pool's merge threads busy with other stores'
                    // merges), run it here: a flush never waits for another store's merges.
                    if (mutex.getHoldCount() == 1) {
                        mutex.unlock();
                        try {
                            threads.helpMerges();
                        } finally {
                            mutex.lock();
                        }
                        if (versions.current() != v) {
                            continue;
                        }
                    }
                    mutex.awaitBackground(10);
                    mutex.checkOpen();
                    continue;
                }
                if (problem == null && plan.merges()) {
                    problem = TaskValidation.problem(v, MergeTask.rewrite(plan.mergeWith(), plan.placement(),
                            plan.output(), plan.reason()), flushed, scheduler.busy(), Set.of(), scheduler.anchored());
                }
                Set<ComponentId> claimedSoFar = new HashSet<>();
                Set<ComponentId> anchorsSoFar = new HashSet<>(scheduler.anchored());
                for (MergeTask t : plan.mergesFirst()) {
                    if (problem == null) {
                        problem = TaskValidation.problem(v, t, List.of(), scheduler.busy(), claimedSoFar, anchorsSoFar);
                        claimedSoFar.addAll(t.inputs());
                        ComponentId a = MergeScheduler.anchorHeld(t.placement(), t.inputs());
                        if (a != null) {
                            anchorsSoFar.add(a);
                        }
                    }
                }
                if (problem != null) {
                    policy.error("rejected flush plan from policy " + policy.policyName() + ": " + problem + " in "
                            + plan, null);
                    plan = FlushPlan.newComponent(Placement.newRun(0), "fallback after a rejected plan");
                    ids.clear();
                }
                return claim(v, plan, ids, flushed);
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Marks a checked plan's inputs busy and lists its merges as running. Mutex held. */
    private Claimed claim(Version v, FlushPlan plan, Set<ComponentId> ids, List<Component> flushed) {
        long[] snaps = snapshots.live();
        List<Component> mergeInputs = plan.mergeWith().stream().map(v::find).toList();
        boolean bottommost = false;
        if (plan.merges()) {
            List<Component> all = new ArrayList<>(mergeInputs);
            all.addAll(flushed);
            bottommost = Layouts.isBottommost(v, ids, plan.placement(), MergeScheduler.minKey(all),
                    MergeScheduler.maxKey(all));
        }
        List<List<Component>> firstInputs = new ArrayList<>();
        List<Boolean> firstBottommost = new ArrayList<>();
        for (MergeTask t : plan.mergesFirst()) {
            List<Component> in = t.inputs().stream().map(v::find).toList();
            firstInputs.add(in);
            firstBottommost.add(Layouts.isBottommost(v, new HashSet<>(t.inputs()), t.placement(),
                    MergeScheduler.minKey(in), MergeScheduler.maxKey(in)));
        }
        List<ComponentId> anchors = new ArrayList<>();
        anchors.add(MergeScheduler.anchorHeld(plan.placement(), plan.mergeWith()));
        plan.mergesFirst().forEach(t -> anchors.add(MergeScheduler.anchorHeld(t.placement(), t.inputs())));
        Claimed claim = new Claimed(plan, ids, mergeInputs, bottommost, firstInputs, firstBottommost, snaps,
                java.util.Collections.unmodifiableList(anchors));
        List<RunningMerge> merges = new ArrayList<>();
        for (int i = 0; i < plan.mergesFirst().size(); i++) {
            MergeTask t = plan.mergesFirst().get(i);
            merges.add(new RunningMerge(t.inputs(), t.placement(), t.mode(), MergeScheduler.bytesOf(firstInputs.get(i)),
                    t.reason()));
        }
        if (plan.merges()) {
            merges.add(new RunningMerge(plan.mergeWith(), plan.placement(), MergeMode.REWRITE,
                    MergeScheduler.bytesOf(mergeInputs) + MergeScheduler.bytesOf(flushed), plan.reason()));
        }
        scheduler.claim(claim, ids, merges, anchors);
        return claim;
    }
}
