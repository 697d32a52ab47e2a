package dev.strata.lsm.engine;

import dev.strata.lsm.StoreListener;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentViews;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Decides and runs merges (LevelDB's {@code MaybeScheduleCompaction}, Pebble's compaction
 * picker loop): asks the policy on the decider thread, off the mutex, whenever a flush or
 * merge ends or the tick fires; validates the tasks against the version current by then;
 * starts the valid ones on the merge pool, higher priority first; retries failed merges with
 * backoff. Holds the busy set (inputs of running merges, a merging flush's included) and
 * the running merges every {@link TreeView} shows, and the write admission of the last
 * decision.
 *
 * <p>Locking: all state is guarded by the engine's mutex except {@link #admission} and
 * {@link #slowdownDepth} (volatile).
 */
final class MergeScheduler {
    private static final System.Logger LOG = System.getLogger(MergeScheduler.class.getName());
    static final long MAX_RETRY_DELAY_MS = 1000;

    private final Path dir;
    private final EngineMutex mutex;
    private final VersionSet versions;
    private final PolicyBridge policy;
    private final MergeJob job;
    private final Snapshots snapshots;
    /** The store's background jobs: merges and retries run there, decisions on its control lane. */
    private final BackgroundThreads threads;
    private final EngineCounters counters;
    private final StoreMetrics metrics;
    private final StoreListener listener;
    /** Whether a flush is running: an admission of STOP with nothing running would hold writers for good. */
    private final BooleanSupplier flushRunning;

    private final Set<ComponentId> busy = new HashSet<>();
    /**
     * Placement anchors of running flushes that are not their inputs, with how many anchor on
     * each: no merge may consume one while the flush runs (a flush must install), so views
     * show them busy. (A merge's anchor is not held: the merge installs into the run its
     * anchor was in when it was accepted, or where that run was if another merge emptied it,
     * see {@link Layouts#resolve}.)
     */
    private final Map<ComponentId, Integer> anchored = new HashMap<>();
    /** Merges being executed, by the job that runs them (a merge task, or a flush's claim). */
    private final Map<Object, List<RunningMerge>> running = new IdentityHashMap<>();
    private int mergesRunning;
    /** A policy decision is queued or running on the control lane. */
    private boolean decisionPending;
    /** Something changed while a decision ran: decide again when it ends. */
    private boolean decisionAgain;
    private boolean retryPending;
    /** Set (mutex held) when the tree's column family is dropped: no decision, merge or retry starts any more. */
    private volatile boolean stopped;
    /** For tests: told {@code "merge started"} on the merge thread before each merge writes (null: none). */
    private volatile java.util.function.Consumer<String> hook;
    private int failures;
    private volatile WriteAdmission admission = WriteAdmission.GO;
    /** With a SLOW_DOWN admission, the policy's slowdown depth (0 to 1 as it answered; see {@link WritePacer#rate}). */
    private volatile double slowdownDepth;
    /** The last admission override logged, to log each distinct one once. */
    private String lastAdmissionOverride;

    /** The store's clock, whose time every view shows the policy ({@link TreeView#nowMillis()}). */
    private final java.time.InstantSource clock;
    /** The tree's settings every view carries ({@link TreeView#settings()}). */
    private final dev.strata.lsm.policy.StoreSettings settings;

    MergeScheduler(Path dir, EngineMutex mutex, VersionSet versions, PolicyBridge policy, MergeJob job,
                   Snapshots snapshots, BackgroundThreads threads, EngineCounters counters, StoreMetrics metrics,
                   StoreListener listener, BooleanSupplier flushRunning, java.time.InstantSource clock,
                   dev.strata.lsm.policy.StoreSettings settings) {
        this.clock = clock;
        this.settings = settings;
        this.dir = dir;
        this.mutex = mutex;
        this.versions = versions;
        this.policy = policy;
        this.job = job;
        this.snapshots = snapshots;
        this.threads = threads;
        this.counters = counters;
        this.metrics = metrics;
        this.listener = listener;
        this.flushRunning = flushRunning;
    }

    /**
     * Manual merges ({@link #startManual}) and their outcome once they end: null while running,
     * "" when done, else why they failed.
     */
    private final Map<MergeTask, String> manual = new IdentityHashMap<>();

    /** The write admission of the last decision. */
    WriteAdmission admission() {
        return admission;
    }

    /** The slowdown depth of the last decision, which matters while {@link #admission()} is SLOW_DOWN. */
    double slowdownDepth() {
        return slowdownDepth;
    }

    /** A decision is queued or running. Mutex held. */
    boolean decisionPending() {
        return decisionPending;
    }

    /** Merges run, a retry waits, or a decision is pending. Mutex held. */
    boolean active() {
        return mergesRunning > 0 || retryPending || decisionPending;
    }

    /** Merges run or a decision is pending (a retry not counted). Mutex held. */
    boolean running() {
        return mergesRunning > 0 || decisionPending;
    }

    /**
     * The tree's column family was dropped: no decision, merge or retry starts from now on
     * (running ones end as they would; {@link #running} says when). Mutex held.
     */
    void stop() {
        stopped = true;
        retryPending = false;
    }

    /** For tests: sets the hook told {@code "merge started"} (null: none). */
    void hook(java.util.function.Consumer<String> hook) {
        this.hook = hook;
    }

    /** The busy components. Mutex held; do not keep. */
    Set<ComponentId> busy() {
        return busy;
    }

    /** Placement anchors of running flushes that are not their inputs. Mutex held; do not keep. */
    Set<ComponentId> anchored() {
        return anchored.keySet();
    }

    /** Whether {@code id} is an input of a running merge or flush, or a flush's anchor (no merge may consume it). Mutex held. */
    boolean held(ComponentId id) {
        return busy.contains(id) || anchored.containsKey(id);
    }

    /** The anchor {@code placement} holds on to while a merge with {@code inputs} runs, or null. */
    static ComponentId anchorHeld(Placement placement, Collection<ComponentId> inputs) {
        return placement.kind() == Placement.Kind.INTO_RUN_OF && !inputs.contains(placement.anchor())
                ? placement.anchor() : null;
    }

    /** The policy's view of {@code v}, marking busy components and listing running merges. Mutex held. */
    TreeView treeView(Version v, Component... extra) {
        List<RunningMerge> merges = new ArrayList<>();
        running.values().forEach(merges::addAll);
        return new TreeView(ComponentViews.levels(v, this::held), v.flushCounter(), policy.state(),
                ComponentViews.estimator(v, extra), merges, clock.millis(), settings);
    }

    /**
     * Marks {@code ids} busy on behalf of {@code owner}, which runs {@code merges}, and holds
     * {@code anchors} (placement anchors that are not inputs; nulls ignored). Mutex held.
     */
    void claim(Object owner, Collection<ComponentId> ids, List<RunningMerge> merges, Collection<ComponentId> anchors) {
        busy.addAll(ids);
        for (ComponentId a : anchors) {
            if (a != null) {
                anchored.merge(a, 1, Integer::sum);
            }
        }
        if (!merges.isEmpty()) {
            running.put(owner, List.copyOf(merges));
        }
    }

    /** Undoes {@link #claim}. Mutex held. */
    void release(Object owner, Collection<ComponentId> ids, Collection<ComponentId> anchors) {
        ids.forEach(busy::remove);
        for (ComponentId a : anchors) {
            if (a != null) {
                anchored.computeIfPresent(a, (k, n) -> n == 1 ? null : n - 1);
            }
        }
        running.remove(owner);
    }

    /**
     * Asks for a policy decision: the policy picks merges on the decider, off the write
     * mutex, and the valid ones start. Mutex held; a request made while a decision runs
     * makes it decide again once it ends, with a fresh view.
     */
    void scheduleMerges() {
        if (mutex.closed() || stopped) {
            return;
        }
        if (decisionPending) {
            decisionAgain = true;
            return;
        }
        decisionPending = true;
        try {
            threads.decide(this::decide);
        } catch (RejectedExecutionException e) {
            decisionPending = false; // shutting down
        }
    }

    /**
     * One or more decisions: a view taken under the mutex, the policy consulted without it
     * (writers, flushes and merges go on meanwhile), then the tasks validated against the
     * version current by then and started under the mutex. Writers about to switch a
     * memtable wait for it (see {@link WriteControl}), so admission is never older than the
     * last flush or merge.
     */
    private void decide() {
        boolean done = false;
        try {
            while (!done) {
                done = decideOnce();
            }
        } finally {
            if (!done) {
                // Something threw (an Error in the policy, say): a decision left pending would
                // hold every writer at its next memtable switch. Nothing is pending any more.
                mutex.lock();
                try {
                    decisionPending = false;
                    admission = WriteAdmission.GO;
                    mutex.signalBackground();
                } finally {
                    mutex.unlock();
                }
            }
        }
    }

    /** One decision; true when no other is wanted. */
    private boolean decideOnce() {
        TreeView view;
        Version seen;
        Set<ComponentId> heldSeen;
        mutex.lock();
        try {
            if (mutex.closed() || stopped) {
                decisionPending = false;
                mutex.signalBackground();
                return true;
            }
            decisionAgain = false;
            seen = versions.current();
            view = treeView(seen);
            heldSeen = new HashSet<>(busy);
            heldSeen.addAll(anchored.keySet());
        } finally {
            mutex.unlock();
        }
        PolicyBridge.Decision decision = null;
        Throwable failure = null;
        try {
            decision = policy.decide(view);
        } catch (RuntimeException | StackOverflowError e) {
            failure = e;
        }
        mutex.lock();
        try {
            if (failure != null) {
                policy.error("merge policy " + policy.policyName() + " failed", failure);
                admission = WriteAdmission.GO;
            } else if (!mutex.closed() && !stopped) {
                slowdownDepth = decision.slowdownDepth();
                admission = decision.admission();
                policy.adopt(decision);
                start(decision.tasks(), seen, heldSeen);
            }
            if (!decisionAgain || mutex.closed() || stopped) {
                decisionPending = false;
                mutex.signalBackground();
                return true;
            }
            return false;
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Validates the policy's tasks against the current version and starts the valid ones.
     * A task made stale while the policy decided (it names a component that a merge or flush
     * has taken, anchored on or replaced since the view {@code seen}, whose held components
     * were {@code heldSeen}; or it fails on the current version but passes on {@code seen})
     * is not the policy's error: it is dropped and the policy asked again with a fresh view.
     * Mutex held.
     */
    private void start(List<MergeTask> tasks, Version seen, Set<ComponentId> heldSeen) {
        Version v = versions.current();
        Set<ComponentId> claimed = new HashSet<>();
        // Higher priority first, then in the order the policy picked (a stable sort): the pool
        // starts them in submission order.
        List<MergeTask> ordered = new ArrayList<>(tasks);
        ordered.sort(Comparator.comparingInt(MergeTask::priority).reversed());
        for (MergeTask task : ordered) {
            if (stale(task, v, seen, heldSeen)) {
                decisionAgain = true;
                LOG.log(System.Logger.Level.DEBUG, () -> "merge " + task + " went stale while the policy decided; "
                        + "asking again");
                continue;
            }
            String problem = TaskValidation.problem(v, task, List.of(), busy, claimed, anchored.keySet());
            if (problem != null && v != seen && TaskValidation.problem(seen, task, List.of(), heldSeen, claimed,
                    Set.of()) == null) {
                // Valid on the view the policy saw; the tree changed under it (a merge or flush
                // installed meanwhile): not the policy's error. Ask again with a fresh view.
                decisionAgain = true;
                LOG.log(System.Logger.Level.DEBUG, () -> "merge " + task + " went stale while the policy decided ("
                        + problem + "); asking again");
                continue;
            }
            if (problem != null) {
                policy.error("rejected merge from policy " + policy.policyName() + ": " + problem + " in " + task, null);
                continue;
            }
            claimed.addAll(task.inputs());
            launch(task, v);
        }
        if (admission == WriteAdmission.STOP && mergesRunning == 0 && !flushRunning.getAsBoolean() && !decisionAgain) {
            // Nothing running could change the policy's mind: writers held back now would wait
            // for good (torture: a policy whose every merge was rejected, and writes stopped).
            // A policy error, not a hang: writes proceed until the policy asks for a merge that runs.
            // A SLOW_DOWN is kept: it paces writers (WritePacer), it never holds them for good.
            policy.countError();
            String message = "merge policy " + policy.policyName() + " answered " + admission
                    + " with no merge running or accepted; writes proceed";
            if (!message.equals(lastAdmissionOverride)) {
                lastAdmissionOverride = message;
                LOG.log(System.Logger.Level.ERROR, message + " (" + tasks.size() + " task(s) asked for)");
            }
            admission = WriteAdmission.GO;
        }
    }

    /**
     * Validates the tasks of a manual compaction against the current version and, if all are
     * valid, starts them; they run like the policy's merges but are not retried: their
     * outcome goes to {@link #manualOutcome}. Mutex held.
     *
     * @return null when started, else the problem with the first invalid task (none started)
     */
    String startManual(List<MergeTask> tasks) {
        if (stopped) {
            return "the column family was dropped";
        }
        Version v = versions.current();
        Set<ComponentId> claimed = new HashSet<>();
        for (MergeTask task : tasks) {
            String problem = TaskValidation.problem(v, task, List.of(), busy, claimed, anchored.keySet());
            if (problem != null) {
                return problem + " in " + task;
            }
            claimed.addAll(task.inputs());
        }
        for (MergeTask task : tasks) {
            manual.put(task, null);
            launch(task, v);
        }
        return null;
    }

    /**
     * Starts validated {@code task} on the merge pool against {@code v}: records its anchor's
     * run, whether it is bottommost and the live snapshots, and marks its inputs busy. Mutex held.
     */
    private void launch(MergeTask task, Version v) {
        Layouts.RunAt anchorRun = Layouts.runAt(v, task.placement());
        List<Component> inputs = task.inputs().stream().map(v::find).toList();
        boolean bottommost = Layouts.isBottommost(v, new HashSet<>(task.inputs()), task.placement(),
                minKey(inputs), maxKey(inputs));
        long[] snaps = snapshots.live();
        mergesRunning++;
        claim(task, task.inputs(), List.of(new RunningMerge(task.inputs(), task.placement(), task.mode(),
                bytesOf(inputs), task.reason())), List.of());
        try {
            threads.merge(() -> run(task, inputs, bottommost, snaps, anchorRun));
        } catch (RejectedExecutionException e) {
            // The pool was closed under an open store (shared resources closed first): the
            // merge never runs; undo its claim so that close does not wait for it.
            release(task, task.inputs(), List.of());
            mergesRunning--;
            if (manual.containsKey(task)) {
                manual.put(task, "the merge could not start: " + e.getMessage());
            }
            mutex.signalBackground();
        }
    }

    /**
     * The outcome of a manual task once it ended ("" done, else the failure), null while it
     * runs; an ended task's outcome is handed out once. Mutex held.
     */
    String manualOutcome(MergeTask task) {
        String outcome = manual.get(task);
        if (outcome != null) {
            manual.remove(task);
        }
        return outcome;
    }

    /** Whether {@code task} names a component taken, anchored on or replaced since the policy's view. */
    private boolean stale(MergeTask task, Version now, Version seen, Set<ComponentId> heldSeen) {
        List<ComponentId> named = new ArrayList<>(task.inputs());
        if (task.placement().kind() == Placement.Kind.INTO_RUN_OF) {
            named.add(task.placement().anchor());
        }
        for (ComponentId id : named) {
            if (held(id) && !heldSeen.contains(id)) {
                return true;
            }
            if (now != seen && now.find(id) == null && seen.find(id) != null) {
                return true;
            }
        }
        return false;
    }

    private void run(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps,
                     Layouts.RunAt anchorRun) {
        boolean ok = false;
        String failure = "the merge did not finish";
        long mergeStart = System.nanoTime();
        try {
            listener.mergeStarted(task.reason());
            if (mutex.closed()) {
                // Queued when the store closed (its close runs the store's queued jobs itself):
                // nothing is merged, the inputs are released.
                failure = "the store closed before the merge started";
            } else if (stopped) {
                // Queued when the family was dropped: its tables go with its directory.
                failure = "the column family was dropped before the merge started";
            } else {
                java.util.function.Consumer<String> h = hook;
                if (h != null) {
                    h.accept("merge started");
                }
                long bytes = job.run(task, inputs, bottommost, snaps, anchorRun);
                ok = true;
                counters.merges.incrementAndGet();
                counters.wroteIntoLevel(task.placement().level(), bytes);
                counters.wroteAs(task.kindLabel(), bytes);
                long nanos = System.nanoTime() - mergeStart;
                metrics.recordMerge(nanos);
                listener.merged(inputs.size(), bytes, nanos);
            }
        } catch (StopOnCloseIterator.MergeStoppedException e) {
            failure = "the store closed during the merge";
        } catch (Layouts.PolicyError e) {
            failure = "merge " + task + " could not be installed: " + e.getMessage();
            policy.error(failure, null);
        } catch (RuntimeException | IOException e) {
            failure = "merge " + task + " in " + dir + " failed: " + e;
            LOG.log(System.Logger.Level.WARNING, "merge " + task + " in " + dir + " failed; will retry", e);
        } finally {
            listener.mergeEnded(task.reason(), ok);
            mutex.lock();
            try {
                release(task, task.inputs(), List.of());
                mergesRunning--;
                if (manual.containsKey(task)) {
                    manual.put(task, ok ? "" : failure);
                }
                if (ok) {
                    counters.chains.mergeCompleted(task.placement().level(), bytesOf(inputs));
                    failures = 0;
                    scheduleMerges();
                } else if (!mutex.closed() && !stopped) {
                    failures++;
                    retryPending = true;
                    long delay = Math.min(MAX_RETRY_DELAY_MS, 10L << Math.min(failures, 7));
                    try {
                        threads.schedule(BackgroundPool.Lane.CONTROL, this::retry, delay);
                    } catch (RejectedExecutionException e) {
                        retryPending = false; // closing
                    }
                }
                mutex.signalBackground();
            } finally {
                mutex.unlock();
            }
        }
    }

    private void retry() {
        mutex.lock();
        try {
            retryPending = false;
            scheduleMerges();
            mutex.signalBackground();
        } finally {
            mutex.unlock();
        }
    }

    static long bytesOf(List<Component> cs) {
        long bytes = 0;
        for (Component c : cs) {
            bytes += c.meta().sizeBytes();
        }
        return bytes;
    }

    static byte[] minKey(List<Component> cs) {
        return cs.stream().map(c -> c.meta().minKey()).min(Arrays::compareUnsigned).orElseThrow();
    }

    static byte[] maxKey(List<Component> cs) {
        return cs.stream().map(c -> c.meta().maxKey()).max(Arrays::compareUnsigned).orElseThrow();
    }
}
