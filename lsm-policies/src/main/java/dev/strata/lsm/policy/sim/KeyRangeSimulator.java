package dev.strata.lsm.policy.sim;

import dev.strata.lsm.merge.OutputCutter;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.SelectiveThresholds;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Runs a merge policy — the same object the engine runs — over a key-range-aware simulated
 * tree: components have key ranges and a density of entries over the key space, a run
 * holds several of them, outputs are cut as the task's {@link OutputSpec} says (by lsm-core's
 * {@link OutputCutter}, the engine's own evaluation: size, cut keys, alignment, overlap with
 * the level below), {@link MergeMode#MOVE} moves files without writing, and partitioned
 * merges touch only the files they name. This is what leveled, partitioned (Spooky), vLSM and
 * design-space policies need; the stack {@link Simulator} keeps the bounded-depth paper's cost
 * model, where every component spans the whole key space.
 *
 * <p>Workloads: uniform unique inserts (merged densities add up) or uniform updates of a
 * fixed number of keys (a merge keeps one version per key: of keys present in inputs with
 * fractions p_i, 1 - prod(1 - p_i) remain). Every decision is applied at once (no concurrency);
 * {@link MergeMode#REUSE_BLOCKS} (block compaction) is modelled per child table: a child of
 * {@code m} leaves ({@value #PAGE_BYTES}-byte pages) receiving {@code n} parent entries spread
 * uniformly over its slice has {@code m (1 - (1 - 1/m)^n)} dirty leaves expected; an in-place
 * merge writes those leaves, the new entries' bytes, one page per 100 leaves of interior
 * pages and a footer page (blooms are not modelled), and its file grows by as much (the
 * dirty leaves stay as dead pages: physical size, which space amplification counts); with
 * selective thresholds, a child too large, mostly dead or mostly dirty by that estimate is
 * rewritten with its slice instead. The engine's figures come from real leaves; this is an
 * estimate for uniform keys. Not thread safe.
 */
public final class KeyRangeSimulator {
    private static final int MAX_MERGES_PER_FLUSH = 100_000;
    /** Steps per output file when an output is cut (the cut precision, about a data block). */
    private static final int STEPS_PER_FILE = 256;

    /**
     * The workload: unique inserts, or updates of {@code keys} keys (0 for inserts) spread
     * over the whole key space or, for a hot set, after {@code uniformFlushes} flushes over
     * the whole key space, over a window {@code hotWidth} wide that moves to another place
     * every {@code moveEvery} flushes (0: never). The space figures of a hot-set run count
     * live bytes as if updates covered every key (an upper bound).
     */
    public record Workload(double keys, double hotWidth, long moveEvery, long uniformFlushes) {
        /**
         * Checks the window.
         *
         * @param keys           the updated keys, 0 for unique inserts
         * @param hotWidth       the hot window's share of the key space, in (0, 1]
         * @param moveEvery      flushes between moves of the window, 0 for never
         * @param uniformFlushes flushes over the whole key space before the window applies
         * @throws IllegalArgumentException naming a value out of range
         */
        public Workload {
            if (!(hotWidth > 0 && hotWidth <= 1) || moveEvery < 0 || uniformFlushes < 0) {
                throw new IllegalArgumentException("need a hot width in (0, 1], moveEvery >= 0 and uniformFlushes >= 0, "
                        + "got " + hotWidth + ", " + moveEvery + " and " + uniformFlushes);
            }
        }

        /**
         * Unique inserts spread over the whole key space.
         *
         * @return the workload
         */
        public static Workload inserts() {
            return new Workload(0, 1, 0, 0);
        }

        /**
         * Updates of {@code keys} keys spread over the whole key space.
         *
         * @param keys the updated keys, at least 1
         * @return the workload
         * @throws IllegalArgumentException for fewer than one key
         */
        public static Workload updates(long keys) {

            if (keys <= 0) {
                throw new IllegalArgumentException("updates need a positive key count, got " + keys);
            }
            return new Workload(keys, 1, 0, 0);
        }

        /**
         * Updates of {@code keys} keys: {@code uniformFlushes} flushes over the whole key space,
         * then each flush within a window of {@code width} of it, moving every {@code moveEvery}.
         *
         * @param keys           the updated keys, at least 1
         * @param uniformFlushes flushes over the whole key space first
         * @param width          the window's share of the key space, in (0, 1]
         * @param moveEvery      flushes between moves of the window, 0 for never
         * @return the workload
         */
        public static Workload hotSetUpdates(long keys, long uniformFlushes, double width, long moveEvery) {
            if (keys <= 0) {
                throw new IllegalArgumentException("updates need a positive key count, got " + keys);
            }
            return new Workload(keys, width, moveEvery, uniformFlushes);
        }

        /** The width of flush {@code t}'s key range. */
        double width(long t) {
            return t <= uniformFlushes ? 1 : hotWidth;
        }

        boolean updates() {
            return keys > 0;
        }

        /** Where flush {@code t} (from 1) starts: 0, or the hot window's place for that flush. */
        double windowStart(long t) {
            if (width(t) >= 1) {
                return 0;
            }
            long segment = moveEvery == 0 ? 0 : (t - uniformFlushes - 1) / moveEvery;
            double golden = segment * 0.6180339887498949;
            return (golden - Math.floor(golden)) * (1 - hotWidth);
        }
    }

    /**
     * What one merge did, for trace checks: the tree before it, the task, what it removed and
     * created, and the view the policy decided it on (with the policy's state; when a policy
     * returns several tasks at once, the later ones run on a tree the earlier ones changed, so
     * {@code before} and {@code decidedOn} differ).
     */
    public record MergeEvent(long flush, TreeView before, MergeTask task, List<ComponentView> inputs,
                             List<Integer> inputLevels, List<ComponentView> outputs, long bytesWritten,
                             TreeView decidedOn) {
    }

    /**
     * Figures of one run.
     *
     * @param waImpl (flush + merge bytes) / flushed bytes: the engine's accounting
     * @param waModel merge bytes / flushed bytes: the papers' accounting (flush not counted)
     * @param mergeBytesByLevel merge bytes written into each level
     * @param peakSpaceAmplification largest (bytes in the tree / live logical bytes) after a flush's decisions
     * @param spaceAmplification the same at the end
     */
    public record Result(String policy, Map<String, Object> params, long flushes, double waImpl, double waModel,
                         long[] mergeBytesByLevel, long moves, long merges, double peakSpaceAmplification,
                         double spaceAmplification, int components, int maxComponents, String tree) {
    }

    private final String policyName;
    private final PolicyParameters params;
    private final MergePolicy policy;
    private final Workload workload;
    private final double entryBytes;
    private final double flushEntries;
    /** What every view shows the policy: the memtable is a flush's worth, {@code flushBytes}. */
    private final StoreSettings settings;
    private long flushIntervalMillis = 1000;
    private Consumer<MergeEvent> events = e -> { };
    private Consumer<String> trace = s -> { };

    /**
     * A simulator of {@code policy} (not shared: the simulator calls it from one thread).
     *
     * @param policyName the policy's name, for reports
     * @param params     the policy's parameters, for reports
     * @param policy     the policy, fresh
     * @param workload   what each flush writes
     * @param entryBytes bytes of one entry on disk (key, value and per-entry overhead)
     * @param flushBytes bytes of one flush (a memtable's worth)
     */
    public KeyRangeSimulator(String policyName, PolicyParameters params, MergePolicy policy, Workload workload,
                             double entryBytes, long flushBytes) {
        if (entryBytes <= 0 || flushBytes < entryBytes) {
            throw new IllegalArgumentException("need 0 < entryBytes <= flushBytes, got " + entryBytes + " and "
                    + flushBytes);
        }
        this.policyName = policyName;
        this.params = params;
        this.policy = policy;
        this.workload = workload;
        this.entryBytes = entryBytes;
        this.flushEntries = flushBytes / entryBytes;
        this.settings = new StoreSettings(flushBytes);
    }

    /**
     * Simulates the registered policy {@code name} with raw parameters.
     *
     * @param name       a registered policy's name
     * @param rawParams  its raw parameters ({@code PolicyParameters.resolve} parses them)
     * @param workload   what each flush writes
     * @param entryBytes bytes of one entry on disk
     * @param flushBytes bytes of one flush
     * @return the simulator
     */
    public static KeyRangeSimulator of(String name, Map<String, String> rawParams, Workload workload,
                                       double entryBytes, long flushBytes) {
        MergePolicyFactory f = MergePolicies.find(name);
        PolicyParameters p = PolicyParameters.resolve(name, f.parameters(), rawParams);
        return new KeyRangeSimulator(name, p, f.create(p), workload, entryBytes, flushBytes);
    }

    /**
     * The simulated clock advances this much per flush (time-based triggers).
     *
     * @param millis the time between flushes
     * @return this simulator
     */
    public KeyRangeSimulator flushIntervalMillis(long millis) {
        this.flushIntervalMillis = millis;
        return this;
    }

    /**
     * Where each simulated merge is reported.
     *
     * @param sink called once per merge, on the simulating thread
     * @return this simulator
     */
    public KeyRangeSimulator onMerge(Consumer<MergeEvent> sink) {
        this.events = sink;
        return this;
    }

    /**
     * One line per flush and per merge.
     *
     * @param sink called with each line, on the simulating thread
     * @return this simulator
     */
    public KeyRangeSimulator onTrace(Consumer<String> sink) {
        this.trace = sink;
        return this;
    }

    /**
     * Runs {@code flushes} flushes with the merges the policy decides after each.
     *
     * @param flushes the number of flushes
     * @return the totals and per-level figures
     */
    public Result run(long flushes) {

        RangedTree tree = new RangedTree();
        byte[] state = new byte[0];
        long nextId = 1;
        double flushed = 0;
        long mergeWritten = 0;
        long flushWritten = 0;
        long[] byLevel = new long[16];
        long moves = 0;
        long merges = 0;
        double insertedEntries = 0;
        double peakSa = 0;
        int maxComponents = 0;
        long[] ids = {nextId};
        for (long t = 1; t <= flushes; t++) {
            long now = t * flushIntervalMillis;
            TreeView view = tree.view(t - 1, state, now, settings);
            double windowKeys = workload.keys() * workload.width(t);
            double lo = workload.windowStart(t);
            KeyDensity flushDensity = KeyDensity.uniform(lo, lo + workload.width(t), workload.updates()
                    ? windowKeys * (1 - Math.pow(1 - 1 / windowKeys, flushEntries)) : flushEntries);
            RangedTree.Part flush = new RangedTree.Part(new ComponentId(ids[0]++, 0), flushDensity, t, t, ids[0],
                    now, entryBytes);
            flushed += flush.bytes();
            insertedEntries += flushEntries;
            FlushPlan plan = policy.planFlush(view, flush.view);
            for (MergeTask task : plan.mergesFirst()) {
                long w = merge(tree, task, t, now, ids, null, view);
                mergeWritten += w;
                addLevel(byLevel, task.placement().level(), w);
                merges += task.mode() == MergeMode.MOVE ? 0 : 1;
                moves += task.mode() == MergeMode.MOVE ? 1 : 0;
            }
            if (plan.merges()) {
                MergeTask withFlush = new MergeTask(plan.mergeWith(), plan.placement(), plan.output(),
                        MergeMode.REWRITE, 0, "flush plan: " + plan.reason());
                long w = merge(tree, withFlush, t, now, ids, flush, view);
                flushWritten += w;
                addLevel(byLevel, plan.placement().level(), w - flush.bytes());
                merges++;
            } else {
                List<RangedTree.Part> outs = cut(tree, List.of(flush.density), plan.output(), plan.placement().level(),
                        t, t, now, ids);
                tree.apply(List.of(), outs, plan.placement());
                flushWritten += flush.bytes();
            }
            trace.accept("flush " + t + ": " + plan);
            state = policy.persistentState(tree.view(t, state, now, settings));
            for (int round = 0; ; round++) {
                TreeView decidedOn = tree.view(t, state, now, settings);
                List<MergeTask> tasks = policy.pickMerges(decidedOn);
                if (tasks.isEmpty()) {
                    break;
                }
                if (round >= MAX_MERGES_PER_FLUSH) {
                    throw new IllegalStateException(policyName + " keeps asking for merges after flush " + t);
                }
                for (MergeTask task : tasks) {
                    long w = merge(tree, task, t, now, ids, null, decidedOn);
                    mergeWritten += w;
                    addLevel(byLevel, task.placement().level(), w);
                    merges += task.mode() == MergeMode.MOVE ? 0 : 1;
                    moves += task.mode() == MergeMode.MOVE ? 1 : 0;
                }
                state = policy.persistentState(tree.view(t, state, now, settings));
            }
            maxComponents = Math.max(maxComponents, tree.componentCount());
            peakSa = Math.max(peakSa, tree.totalBytes() / liveBytes(insertedEntries));
        }
        double mergeOnly = mergeWritten + (flushWritten - flushed);
        int levels = byLevel.length;
        while (levels > 1 && byLevel[levels - 1] == 0) {
            levels--;
        }
        return new Result(policyName, params.asMap(), flushes, flushed == 0 ? 0 : (flushed + mergeOnly) / flushed,
                flushed == 0 ? 0 : mergeOnly / flushed, java.util.Arrays.copyOf(byLevel, levels), moves, merges, peakSa,
                flushes == 0 ? 0 : tree.totalBytes() / liveBytes(insertedEntries), tree.componentCount(),
                maxComponents, tree.describe());
    }

    private double liveBytes(double inserted) {
        double live = workload.updates() ? workload.keys() * (1 - Math.pow(1 - 1 / workload.keys(), inserted)) : inserted;
        return Math.max(1, live * entryBytes);
    }

    private static void addLevel(long[] byLevel, int level, long bytes) {
        if (level < byLevel.length) {
            byLevel[level] += bytes;
        }
    }

    /**
     * Applies one task; returns the bytes it wrote (0 for a move). {@code flush}, when not
     * null, is a flush merged with the task's inputs (not yet in the tree).
     */
    private long merge(RangedTree tree, MergeTask task, long t, long now, long[] ids, RangedTree.Part flush,
                       TreeView decidedOn) {
        TreeView before = tree.view(t, new byte[0], now, settings);
        List<RangedTree.Part> inputs = new ArrayList<>();
        List<Integer> inputLevels = new ArrayList<>();
        for (ComponentId id : task.inputs()) {
            RangedTree.Part p = tree.find(id);
            if (p == null) {
                throw new IllegalStateException(policyName + " named component " + id + ", which does not exist ("
                        + task + ")");
            }
            inputs.add(p);
            inputLevels.add(tree.levelOf(id));
        }
        List<RangedTree.Part> outputs;
        long written;
        if (task.mode() == MergeMode.REUSE_BLOCKS) {
            outputs = new ArrayList<>();
            written = reuseBlocks(tree, task, inputs, now, ids, outputs);
            tree.apply(task.inputs(), outputs, task.placement());
        } else if (task.mode() == MergeMode.MOVE) {
            outputs = inputs;
            written = 0;
            tree.apply(task.inputs(), outputs, task.placement());
        } else {
            List<KeyDensity> densities = new ArrayList<>();
            long minSeq = Long.MAX_VALUE;
            long maxSeq = Long.MIN_VALUE;
            for (RangedTree.Part p : inputs) {
                densities.add(p.density);
                minSeq = Math.min(minSeq, p.minSeq);
                maxSeq = Math.max(maxSeq, p.maxSeq);
            }
            if (flush != null) {
                densities.add(flush.density);
                minSeq = Math.min(minSeq, flush.minSeq);
                maxSeq = Math.max(maxSeq, flush.maxSeq);
            }
            KeyDensity merged = KeyDensity.merge(densities, workload.keys());
            outputs = merged == null ? List.of()
                    : cut(tree, List.of(merged), task.output(), task.placement().level(), minSeq, maxSeq, now, ids);
            written = 0;
            for (RangedTree.Part p : outputs) {
                written += p.bytes();
            }
            tree.apply(task.inputs(), outputs, task.placement());
        }
        List<ComponentView> inViews = inputs.stream().map(p -> p.view).toList();
        List<ComponentView> outViews = outputs.stream().map(p -> p.view).toList();
        events.accept(new MergeEvent(t, before, task, inViews, inputLevels, outViews, written, decidedOn));
        trace.accept("  " + task.mode() + " " + task.inputs().size() + (flush != null ? "+flush" : "") + " -> "
                + task.placement() + ": " + outputs.size() + " files, " + written + " bytes (" + task.reason() + ")");
        return written;
    }

    /** Page size of the modelled tables (the engine's default). */
    static final int PAGE_BYTES = 4096;

    /**
     * The block compaction model (see the class comment): fills {@code outputs} with the
     * children's new versions and the tables of rewritten children; returns the bytes written.
     */
    private long reuseBlocks(RangedTree tree, MergeTask task, List<RangedTree.Part> inputs, long now, long[] ids,
                             List<RangedTree.Part> outputs) {
        if (task.placement().kind() != Placement.Kind.INTO_RUN_OF) {
            throw new IllegalStateException(policyName + " asked for REUSE_BLOCKS into " + task.placement()
                    + "; it merges into an existing run: " + task);
        }
        Set<ComponentId> run = new HashSet<>();
        tree.runOf(task.placement().level(), task.placement().anchor()).forEach(p -> run.add(p.id));
        List<RangedTree.Part> children = new ArrayList<>();
        List<KeyDensity> parents = new ArrayList<>();
        long minSeq = Long.MAX_VALUE;
        long maxSeq = Long.MIN_VALUE;
        for (RangedTree.Part p : inputs) {
            if (run.contains(p.id)) {
                children.add(p);
            } else {
                parents.add(p.density);
                minSeq = Math.min(minSeq, p.minSeq);
                maxSeq = Math.max(maxSeq, p.maxSeq);
            }
        }
        if (children.isEmpty() || parents.isEmpty()) {
            throw new IllegalStateException(policyName + " asked for REUSE_BLOCKS without "
                    + (children.isEmpty() ? "children in the target run" : "parents outside it") + ": " + task);
        }
        children.sort((a, b) -> Double.compare(a.min(), b.min()));
        KeyDensity parent = KeyDensity.merge(parents, workload.keys());
        long written = 0;
        List<KeyDensity> pending = new ArrayList<>(); // neighbouring rewritten children, cut as one stream
        long[] pendingSeq = {Long.MAX_VALUE, Long.MIN_VALUE};
        for (int i = 0; i < children.size(); i++) {
            RangedTree.Part child = children.get(i);
            double from = i == 0 ? 0 : child.min();
            double to = i == children.size() - 1 ? 2 : children.get(i + 1).min();
            KeyDensity slice = parent == null ? null : parent.slice(from, to);
            long cMin = Math.min(child.minSeq, minSeq);
            long cMax = Math.max(child.maxSeq, maxSeq);
            double leaves = Math.max(1, Math.ceil((double) child.bytes() / PAGE_BYTES));
            double n = slice == null ? 0 : slice.entries();
            double dirtyBytes = leaves * (1 - Math.pow(1 - 1 / leaves, n)) * PAGE_BYTES;
            boolean rewrite = false;
            SelectiveThresholds t = task.selective();
            if (t != null) {
                rewrite = t.rewrite(child.bytes(), (double) child.bytes() / child.physicalBytes(),
                        dirtyBytes / child.physicalBytes()) != SelectiveThresholds.Rewrite.NO;
            }
            if (rewrite) {
                pending.add(child.density);
                if (slice != null) {
                    pending.add(slice);
                }
                pendingSeq[0] = Math.min(pendingSeq[0], cMin);
                pendingSeq[1] = Math.max(pendingSeq[1], cMax);
                continue;
            }
            written += flushRewrites(tree, task, pending, pendingSeq, now, ids, outputs);
            KeyDensity merged = slice == null ? child.density
                    : KeyDensity.merge(List.of(child.density, slice), workload.keys());
            double grown = Math.max(0, merged.entries() - child.density.entries()) * entryBytes;
            long w = Math.round(dirtyBytes + grown) + PAGE_BYTES * (1 + (long) Math.ceil(leaves / 100));
            long physical = child.physicalBytes() + w;
            outputs.add(new RangedTree.Part(new ComponentId(child.id.fileNumber(), physical), merged,
                    slice == null ? child.minSeq : cMin, slice == null ? child.maxSeq : cMax, ids[0]++, now,
                    entryBytes, physical));
            written += w;
        }
        written += flushRewrites(tree, task, pending, pendingSeq, now, ids, outputs);
        return written;
    }

    /** Rewrites the pending neighbouring children with their slices as one stream cut by the task's spec. */
    private long flushRewrites(RangedTree tree, MergeTask task, List<KeyDensity> pending, long[] seq, long now,
                               long[] ids, List<RangedTree.Part> outputs) {
        if (pending.isEmpty()) {
            return 0;
        }
        long written = 0;
        KeyDensity merged = KeyDensity.merge(pending, workload.keys());
        for (RangedTree.Part p : cut(tree, List.of(merged), task.output(), task.placement().level(), seq[0], seq[1],
                now, ids)) {
            outputs.add(p);
            written += p.bytes();
        }
        pending.clear();
        seq[0] = Long.MAX_VALUE;
        seq[1] = Long.MIN_VALUE;
        return written;
    }

    /** Cuts the entries of {@code data} into files as {@code spec} says, evaluated against the tree as it is. */
    private List<RangedTree.Part> cut(RangedTree tree, List<KeyDensity> data, OutputSpec spec, int targetLevel,
                                      long minSeq, long maxSeq, long now, long[] ids) {
        KeyDensity all = data.size() == 1 ? data.get(0) : KeyDensity.merge(data, workload.keys());
        if (!spec.cuts()) {
            return List.of(new RangedTree.Part(new ComponentId(ids[0]++, 0), all, minSeq, maxSeq, ids[0], now,
                    entryBytes));
        }
        List<OutputCutter.FileBounds> align = spec.alignToLevel() == OutputSpec.NO_LEVEL ? List.of()
                : bounds(tree.levelFiles(spec.alignToLevel()));
        List<OutputCutter.FileBounds> below = !spec.usesLevelBelow() ? List.of()
                : bounds(tree.levelFiles(targetLevel + 1));
        OutputCutter cutter = new OutputCutter(spec, align, below);
        double fileEntries = spec.maxFileBytes() == Long.MAX_VALUE ? all.entries() : spec.maxFileBytes() / entryBytes;
        double step = Math.max(1, fileEntries / STEPS_PER_FILE);
        List<Double> cutsAt = new ArrayList<>();
        double[] fileBytes = {-1};
        // Every boundary the cutter aligns to or counts overlap against, and every cut key, is a
        // step, so cuts there are exact (a step across a cut key would spread a file past it).
        double[] extra = java.util.stream.DoubleStream.concat(java.util.stream.Stream.concat(align.stream(),
                        below.stream()).flatMapToDouble(b -> java.util.stream.DoubleStream.of(
                                RangedTree.position(b.minKey()), RangedTree.position(b.maxKey()) + 1 / 0x1p62)),
                spec.cutKeys().stream().mapToDouble(RangedTree::position))
                .sorted().toArray();
        all.walk(step, extra, (x, entries) -> {
            byte[] k = RangedTree.key(x);
            if (fileBytes[0] < 0) {
                cutter.fileStarted(k);
                fileBytes[0] = 0;
            } else if (cutter.cutBefore(k, (long) fileBytes[0])) {
                cutsAt.add(x);
                cutter.fileStarted(k);
                fileBytes[0] = 0;
            }
            fileBytes[0] += entries * entryBytes;
        });
        List<RangedTree.Part> out = new ArrayList<>();
        double lo = all.min();
        cutsAt.add(all.max());
        for (double hi : cutsAt) {
            KeyDensity piece = all.slice(lo, hi);
            if (piece != null) {
                out.add(new RangedTree.Part(new ComponentId(ids[0]++, 0), piece, minSeq, maxSeq, ids[0], now,
                        entryBytes));
            }
            lo = hi;
        }
        return out;
    }

    private static List<OutputCutter.FileBounds> bounds(List<RangedTree.Part> files) {
        List<OutputCutter.FileBounds> out = new ArrayList<>(files.size());
        for (RangedTree.Part p : files) {
            out.add(new OutputCutter.FileBounds(p.view.minKey(), p.view.maxKey(), p.bytes()));
        }
        return out;
    }

    /** Used by tests: which placement a flush plan put the flush at. */
    static Placement placementOf(FlushPlan plan) {
        return plan.placement();
    }
}
