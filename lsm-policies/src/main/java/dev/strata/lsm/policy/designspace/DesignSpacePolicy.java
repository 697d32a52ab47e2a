package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The compaction design space of seed 003 as one policy composed of four primitives —
 * triggers ({@link TriggerKind}, in priority order), a data {@link Layout}, a
 * {@link Granularity} and a {@link DataMovement} rule — plus pseudo-compaction, which is
 * always on: a chosen file that overlaps nothing where it goes is moved by a metadata-only
 * {@link dev.strata.lsm.policy.MergeMode#MOVE}. The ten strategies of the paper are
 * presets of this class ({@link DesignSpacePresets}); nothing is strategy-specific here.
 *
 * <p>Flushes land as a new run of level 0. A leveled level that holds more than one run
 * (level 0 after a flush) first has its newer runs merged into its oldest run — the paper
 * compacts "as soon as level 1 has more than one file" — unless the level is saturated and
 * its oldest run holds several files: then one of those goes down first and the newer runs
 * wait (consolidating first starves the saturation trigger under steady writes). Then the
 * triggers are checked
 * in order; each source level yields at most one compaction per decision, and no component
 * is used twice.
 *
 * <p>State kept across restarts (in the manifest): the memtable size learned from flushed
 * tables (the default file size and the unit of level capacities) and the round-robin
 * cursors.
 */
final class DesignSpacePolicy implements MergePolicy {
    private final String name;
    private final DesignSpaceConfig cfg;
    private final DesignSpaceState state = new DesignSpaceState();
    /** The memtable size of a view that carries none (one made by hand): the design-space paper's 8 MiB buffer. */
    static final long UNKNOWN_MEMTABLE_BYTES = 8L << 20;

    DesignSpacePolicy(String name, DesignSpaceConfig cfg) {
        this.name = name;
        this.cfg = cfg;
    }

    DesignSpaceConfig config() {
        return cfg;
    }

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        state.load(tree.policyState());
        return FlushPlan.newComponent(Placement.newRun(0), name + ": flush to a new run of L0");
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        state.load(tree.policyState());
        TreeShape t = new TreeShape(tree, cfg.layout());
        List<MergeTask> tasks = new ArrayList<>();
        boolean[] sourceUsed = new boolean[t.lastLevel + 2];
        // A saturated leveled level whose run holds several files drains first: its newer runs
        // wait. Consolidating first starved it under steady writes (each consolidation ended
        // with the next flush's run already there, so the level never held one run and never
        // moved data down: level 0 grew without bound and every flush rewrote all of it). Once
        // the run is down to one file, the newer runs are consolidated into it — all at once, so
        // a flush's file, which spans every key, never goes down alone to merge with the whole
        // level below (seen on the engine: 8 MiB flushes merged with 280 MB of level 1).
        LevelCapacities caps = LevelCapacities.of(t.tree, t.lastLevel, memtableBytes(tree), cfg.sizeRatio(),
                cfg.dynamicLevelBytes(), cfg.level1Bytes());
        for (int level = 0; level <= t.lastLevel; level++) {
            if (t.shape(level) == LevelShape.LEVELED && t.runs(level).size() > 1 && !drainsFirst(t, caps, level)) {
                add(tasks, sourceUsed, level, consolidate(t, level));
            }
        }
        if (cfg.blockCompaction()) {
            garbage(t, tasks, sourceUsed);
        }
        List<TriggerKind> triggers = new ArrayList<>(cfg.triggers());
        int runs = triggers.indexOf(TriggerKind.RUNS);
        int saturation = triggers.indexOf(TriggerKind.SATURATION);
        if (runs >= 0 && runs < saturation && saturationScore(t, caps) > runsScore(t)) {
            // By score, as RocksDB picks: a tiered level's merge takes every file of the leveled
            // level below it, so run first it starved that level's saturation trigger (seen with
            // one-leveling at 10M entries: level 1 never moved down, and every level-0 merge
            // rewrote the whole store).
            triggers.remove(saturation);
            triggers.add(runs, TriggerKind.SATURATION);
        }
        for (TriggerKind trigger : triggers) {
            switch (trigger) {
                case SATURATION -> saturation(t, caps, tasks, sourceUsed);
                case RUNS -> runs(t, tasks, sourceUsed);
                case STALENESS -> perFile(t, tasks, sourceUsed, trigger);
                case SPACE_AMPLIFICATION -> spaceAmplification(t, tasks, sourceUsed);
                case TOMBSTONE_DENSITY, TOMBSTONE_TTL -> perFile(t, tasks, sourceUsed, trigger);
            }
        }
        for (int level = 0; level <= t.lastLevel; level++) {
            if (t.shape(level) == LevelShape.LEVELED && t.runs(level).size() > 1 && !sourceUsed[level]) {
                add(tasks, sourceUsed, level, consolidate(t, level)); // saturated, but nothing could go down
            }
        }
        return tasks;
    }

    /**
     * While a merge runs: STOP from {@code level0-stop-runs} level-0 runs (and always for the
     * whole-level granularity), SLOW_DOWN from {@code level0-slowdown-runs}, so writers are
     * paced before they reach the stop (RocksDB slows writes from 20 level-0 files and stops
     * them at 36); GO otherwise, and whenever no merge runs (the next decision starts one).
     *
     * @param tree the tree now
     * @return whether writers proceed, are slowed or stop
     */
    @Override
    public WriteAdmission admission(TreeView tree) {
        if (tree.runningMerges().isEmpty()) {
            return WriteAdmission.GO;
        }
        int runs = tree.level(0).runs().size();
        if (runs >= cfg.level0StopRuns()) {
            return WriteAdmission.STOP;
        }
        // Full: "ingestion waits until all marked files are compacted" (seed 003, Table 2).
        if (cfg.granularity() == Granularity.WHOLE_LEVEL) {
            return WriteAdmission.STOP;
        }
        return runs >= cfg.effectiveLevel0SlowdownRuns() ? WriteAdmission.SLOW_DOWN : WriteAdmission.GO;
    }

    /**
     * How far level 0 is from {@code level0-slowdown-runs} towards {@code level0-stop-runs}:
     * 0 at the slowdown threshold, (runs − slowdown) / (stop − slowdown) above it, 1 at the
     * stop. The engine halves the delayed write rate for each sixth of the way.
     *
     * @param tree the tree now
     * @return from 0 to 1
     */
    @Override
    public double slowdownDepth(TreeView tree) {
        return WriteAdmission.depthBetween(tree.level(0).runs().size(), cfg.effectiveLevel0SlowdownRuns(),
                cfg.level0StopRuns());
    }

    @Override
    public byte[] persistentState(TreeView tree) {
        state.load(tree.policyState());
        return state.encode();
    }

    private static void add(List<MergeTask> tasks, boolean[] sourceUsed, int level, MergeTask task) {
        if (task != null) {
            tasks.add(task);
            sourceUsed[level] = true;
        }
    }

    /**
     * The memtable size, the unit of level capacities and the default output file size: the
     * store's ({@link StoreSettings#memtableBytes()}); for a view that does not carry it (made
     * by hand) {@code target-file-bytes} if set, else {@link #UNKNOWN_MEMTABLE_BYTES}.
     */
    private long memtableBytes(TreeView tree) {
        StoreSettings s = tree.settings();
        if (s.knowsMemtableBytes()) {
            return s.memtableBytes();
        }
        return cfg.targetFileBytes() > 0 ? cfg.targetFileBytes() : UNKNOWN_MEMTABLE_BYTES;
    }

    private OutputSpec output(TreeView tree) {
        long file = cfg.targetFileBytes() > 0 ? cfg.targetFileBytes() : memtableBytes(tree);
        return OutputSpec.maxFileBytes(Math.max(1, file));
    }

    /**
     * The output of a merge into {@code level}'s run: {@link #output}, and with
     * {@code align-outputs} on and a level below, also cut at that level's file boundaries once
     * the current file holds the configured fraction of the target size (issue 33 §3: a file
     * whose edges are next-level boundaries overlaps only whole next-level files when it is
     * picked later, so the least-overlap ratio it is ranked by is what its merge rewrites).
     */
    private OutputSpec outputInto(TreeShape t, int level) {
        OutputSpec spec = output(t.tree);
        if (cfg.alignOutputs() <= 0 || level >= t.lastLevel || t.shape(level + 1) != LevelShape.LEVELED) {
            return spec;
        }
        long min = Math.max(1, Math.round(spec.maxFileBytes() * cfg.alignOutputs()));
        return spec.withMinFileBytes(Math.min(min, spec.maxFileBytes())).alignedTo(level + 1);
    }

    /** Merges the newer runs of a leveled level into its oldest run. */
    private MergeTask consolidate(TreeShape t, int level) {
        List<RunView> runs = t.runs(level);
        List<ComponentView> arriving = TreeShape.all(runs.subList(0, runs.size() - 1));
        if (arriving.isEmpty() || !t.allFree(arriving)) {
            return null;
        }
        RunView main = runs.get(runs.size() - 1);
        List<ComponentView> below = TreeShape.overlapping(main, TreeShape.minKey(arriving), TreeShape.maxKey(arriving));
        return toRun(t, arriving, runs.size() == 2, below, main, level, false,
                String.format(Locale.ROOT, "%s: L%d holds %d runs, merge the newer into its run", name, level,
                        runs.size()));
    }

    /**
     * A task moving {@code source} into {@code target}'s run at {@code level}, with the
     * overlapping components {@code below}; a MOVE when nothing overlaps and the source is one
     * run; a block compaction when {@code blockEligible} (a merge from level 1 or deeper) and
     * block-compaction is on.
     */
    private MergeTask toRun(TreeShape t, List<ComponentView> source, boolean sourceIsOneRun,
                            List<ComponentView> below, RunView target, int level, boolean blockEligible,
                            String reason) {
        if (!t.allFree(below)) {
            return null;
        }
        List<ComponentView> chosen = new ArrayList<>(source);
        chosen.addAll(below);
        Placement placement;
        if (target == null || target.components().isEmpty()) {
            placement = Placement.newRun(level);
        } else {
            // Anchor on a component that stays put while this task waits and runs: one of its own
            // inputs in the target run, else any one neither busy nor claimed by an earlier task of
            // this decision (torture: a move anchored on a table another merge was consuming was
            // refused, over and over).
            ComponentView anchor = below.isEmpty() ? null : below.get(0);
            for (int i = 0; anchor == null && i < target.components().size(); i++) {
                if (t.free(target.components().get(i))) {
                    anchor = target.components().get(i);
                }
            }
            if (anchor == null) {
                return null; // the whole target run is being merged: wait for it
            }
            placement = Placement.intoRunOf(level, anchor.id());
        }
        List<ComponentView> inputs = StabilityClosure.close(t, chosen, placement);
        if (inputs == null) {
            return null;
        }
        t.claim(inputs);
        int widened = inputs.size() - chosen.size();
        if (widened == 0 && below.isEmpty() && sourceIsOneRun
                && !(level >= t.lastLevel && TreeShape.tombstones(source) > 0)) {
            return MergeTask.move(ids(inputs), placement, reason + "; overlaps nothing there: move");
        }
        if (blockEligible && cfg.blockCompaction() && widened == 0 && !below.isEmpty()
                && placement.kind() == Placement.Kind.INTO_RUN_OF) {
            // Seed 001: merge into the overlapped children in place where selective compaction allows.
            return MergeTask.reuseBlocks(ids(inputs), placement, output(t.tree),
                    cfg.thresholds(level, level >= t.lastLevel, output(t.tree).maxFileBytes()),
                    reason + "; block compaction");
        }
        // Into the last level, files with tombstones are rewritten so the bottommost merge drops them.
        return MergeTask.rewrite(ids(inputs), placement, outputInto(t, level), widened == 0 ? reason
                : reason + "; " + widened + " more for stability");
    }

    /** A task moving {@code source} (from {@code level}) down one level, following the target's shape. */
    private MergeTask down(TreeShape t, int level, List<ComponentView> source, boolean sourceIsOneRun,
                           boolean wholeTarget, String reason) {
        int target = level + 1;
        if (t.shape(target) == LevelShape.TIERED) {
            t.claim(source);
            Placement p = Placement.newRun(target);
            return sourceIsOneRun ? MergeTask.move(ids(source), p, reason + "; new run below: move")
                    : MergeTask.rewrite(ids(source), p, output(t.tree), reason);
        }
        if (t.runs(target).size() > 1) {
            return null; // the target level's own runs are merged first
        }
        RunView main = t.mainRun(target);
        if (main == null && startsRunAt(t, target)) {
            // A running merge is creating the level's run: a second new run would leave the level
            // with two runs to consolidate (seen on the engine, where merges overlap in time).
            return null;
        }
        List<ComponentView> below = wholeTarget && main != null ? main.components()
                : TreeShape.overlapping(main, TreeShape.minKey(source), TreeShape.maxKey(source));
        return toRun(t, source, sourceIsOneRun, below, main, target, level >= 1, reason);
    }

    /** Whether a running merge places its output in a new run of {@code level}. */
    private static boolean startsRunAt(TreeShape t, int level) {
        for (var m : t.tree.runningMerges()) {
            if (m.placement().level() == level && m.placement().kind() != Placement.Kind.INTO_RUN_OF) {
                return true;
            }
        }
        return false;
    }

    private void saturation(TreeShape t, LevelCapacities caps, List<MergeTask> tasks, boolean[] sourceUsed) {
        List<int[]> order = new ArrayList<>();
        List<Double> scores = new ArrayList<>();
        for (int level = 0; level <= t.lastLevel; level++) {
            if (t.shape(level) == LevelShape.LEVELED && !sourceUsed[level]) {
                double score = score(t, caps, level);
                if (score >= 1.0) {
                    order.add(new int[] {level});
                    scores.add(score);
                }
            }
        }
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            idx.add(i);
        }
        idx.sort(Comparator.comparingDouble((Integer i) -> -scores.get(i)).thenComparingInt(i -> order.get(i)[0]));
        for (int i : idx) {
            int level = order.get(i)[0];
            String why = String.format(Locale.ROOT, "%s: L%d saturated (%.2f of capacity %d)", name, level,
                    scores.get(i), caps.of(level));
            add(tasks, sourceUsed, level, partial(t, level, why));
        }
    }

    /** Size ÷ capacity of {@code level} (all its runs). */
    private static double score(TreeShape t, LevelCapacities caps, int level) {
        return (double) t.tree.level(level).sizeBytes() / Math.max(1, caps.of(level));
    }

    /**
     * Whether a leveled {@code level} with newer runs sends a file of its oldest run down
     * before consolidating them: when it is saturated and that run still holds several files,
     * all free (see {@link #pickMerges}).
     */
    private boolean drainsFirst(TreeShape t, LevelCapacities caps, int level) {
        List<ComponentView> oldest = t.mainRun(level).components();
        return cfg.triggers().contains(TriggerKind.SATURATION) && score(t, caps, level) >= 1.0 && oldest.size() >= 2
                && t.allFree(oldest);
    }

    /**
     * The largest size ÷ capacity of a leveled level holding one run (0 if none); a saturated
     * deepest level scores highest, its files moving into an empty level for free.
     */
    private static double saturationScore(TreeShape t, LevelCapacities caps) {
        double best = 0;
        for (int level = 0; level <= t.lastLevel; level++) {
            if (t.shape(level) == LevelShape.LEVELED && t.runs(level).size() == 1) {
                double score = score(t, caps, level);
                // The deepest level going down starts a new level by metadata-only moves: free, so first.
                best = Math.max(best, score >= 1 && level == t.lastLevel ? Double.MAX_VALUE : score);
            }
        }
        return best;
    }

    /** The largest runs ÷ run trigger of a tiered level (0 if none). */
    private double runsScore(TreeShape t) {
        double best = 0;
        for (int level = 0; level <= t.lastLevel; level++) {
            if (t.shape(level) == LevelShape.TIERED) {
                best = Math.max(best, (double) t.runs(level).size() / cfg.level1RunTrigger());
            }
        }
        return best;
    }

    /** The granularity and data-movement primitives applied to a saturated leveled level. */
    private MergeTask partial(TreeShape t, int level, String why) {
        List<ComponentView> files = t.mainRun(level).components();
        if (cfg.granularity() == Granularity.WHOLE_LEVEL || cfg.granularity() == Granularity.SORTED_RUNS) {
            return t.allFree(files) ? down(t, level, files, true, cfg.granularity() == Granularity.WHOLE_LEVEL,
                    why + ", whole level") : null;
        }
        List<ComponentView> ranked = FileRanking.rank(cfg.movement(), t, level, files, state.cursor(level));
        for (ComponentView f : ranked) {
            if (!t.free(f)) {
                continue;
            }
            List<ComponentView> chosen = new ArrayList<>(List.of(f));
            if (cfg.granularity() == Granularity.SEVERAL_FILES) {
                int at = files.indexOf(f);
                for (int j = at + 1; j < files.size() && chosen.size() < cfg.filesPerMerge(); j++) {
                    if (!t.free(files.get(j))) {
                        break;
                    }
                    chosen.add(files.get(j));
                }
            }
            MergeTask task = down(t, level, chosen, true, false,
                    why + ", " + cfg.movement().xmlName() + " picks " + f.id());
            if (task != null) {
                state.advanceCursor(level, chosen.get(chosen.size() - 1).maxKey());
                return task;
            }
        }
        return null;
    }

    /**
     * The sorted-runs trigger of tiered levels, with RocksDB universal compaction's
     * size-ratio rule deciding how many runs go: once a level holds level1-run-trigger runs,
     * the window of newest runs in which each next run is at most (100 + size-ratio-percent)%
     * of the runs before it combined is found; if it holds every run, or fewer than
     * min-merge-width, all runs of the level move down together into one new run (the
     * paper's tiering); otherwise the window is merged in place into one run, as universal
     * compaction does with similar-sized newest runs.
     */
    private void runs(TreeShape t, List<MergeTask> tasks, boolean[] sourceUsed) {
        for (int level = 0; level <= t.lastLevel; level++) {
            List<RunView> runs = t.runs(level);
            if (sourceUsed[level] || t.shape(level) != LevelShape.TIERED || runs.size() < cfg.level1RunTrigger()) {
                continue;
            }
            List<ComponentView> all = TreeShape.all(runs);
            if (!t.allFree(all)) {
                continue;
            }
            int window = sizeRatioWindow(runs);
            String why = String.format(Locale.ROOT, "%s: L%d holds %d runs (trigger %d)", name, level, runs.size(),
                    cfg.level1RunTrigger());
            if (window < runs.size() && window >= Math.max(2, cfg.minMergeWidth())) {
                List<RunView> newest = runs.subList(0, window);
                List<ComponentView> inputs = TreeShape.all(newest);
                t.claim(inputs);
                ComponentId anchor = newest.get(window - 1).components().get(0).id();
                add(tasks, sourceUsed, level, MergeTask.rewrite(ids(inputs), Placement.intoRunOf(level, anchor),
                        output(t.tree), why + String.format(Locale.ROOT, ", the %d newest within size ratio %d%%: merge"
                                + " in place", window, cfg.sizeRatioPercent())));
            } else {
                add(tasks, sourceUsed, level, down(t, level, all, false, false, why + ", all runs move down"));
            }
        }
    }

    /** How many of the newest runs satisfy universal compaction's size-ratio rule. */
    private int sizeRatioWindow(List<RunView> runs) {
        double taken = 0;
        int count = 0;
        for (RunView r : runs) {
            if (count > 0 && r.sizeBytes() * 100.0 > taken * (100.0 + cfg.sizeRatioPercent())) {
                break;
            }
            taken += r.sizeBytes();
            count++;
        }
        return count;
    }

    private void spaceAmplification(TreeShape t, List<MergeTask> tasks, boolean[] sourceUsed) {
        RunView oldest = t.mainRun(t.lastLevel);
        if (oldest == null || sourceUsed[t.lastLevel]) {
            return;
        }
        List<ComponentView> all = t.tree.components();
        long above = TreeShape.bytes(all) - oldest.sizeBytes();
        if (above * 100.0 < (double) cfg.maxSizeAmplificationPercent() * oldest.sizeBytes() || above == 0
                || !t.allFree(all)) {
            return;
        }
        t.claim(all);
        add(tasks, sourceUsed, t.lastLevel, MergeTask.rewrite(ids(all),
                Placement.intoRunOf(t.lastLevel, oldest.components().get(0).id()), output(t.tree),
                String.format(Locale.ROOT, "%s: space amplification %.0f%% >= %d%%, merge everything into L%d", name,
                        100.0 * above / Math.max(1, oldest.sizeBytes()), cfg.maxSizeAmplificationPercent(),
                        t.lastLevel)));
    }

    /**
     * Block compaction's garbage collection (seed 001 §IV-A): a file at a leveled level whose
     * valid ratio (logical ÷ physical bytes) fell below its level's minimum is rewritten in
     * place, most garbage first, one task per level, even if no merge would touch it. Placed
     * before the triggers, so a level's one task per decision goes to it. Its free neighbours
     * in the run that are below the minimum too (up to {@link #GARBAGE_BATCH_FILES} files in
     * all, contiguous) are rewritten with it in the same task: the same files are rewritten as
     * one at a time would, but in one merge (one manifest edit, one decision that holds the
     * level) whose output is cut into full-size files instead of one short file each (issue 33
     * §4: a block compaction leaves several neighbouring children below the minimum at once,
     * and rewriting them one per decision made most of {@code blockdb}'s extra merges).
     */
    private void garbage(TreeShape t, List<MergeTask> tasks, boolean[] sourceUsed) {
        for (int level = 1; level <= t.lastLevel; level++) {
            if (sourceUsed[level] || t.shape(level) != LevelShape.LEVELED || t.runs(level).size() != 1) {
                continue;
            }
            double min = cfg.thresholds(level, level >= t.lastLevel, output(t.tree).maxFileBytes()).minValidRatio();
            List<ComponentView> run = t.mainRun(level).components();
            int worst = -1;
            double worstRatio = min;
            for (int i = 0; i < run.size(); i++) {
                ComponentView c = run.get(i);
                double ratio = validRatio(c);
                if (t.free(c) && ratio < worstRatio) {
                    worst = i;
                    worstRatio = ratio;
                }
            }
            if (worst >= 0) {
                int from = worst;
                int to = worst;
                while (to - from + 1 < GARBAGE_BATCH_FILES) {
                    if (from > 0 && t.free(run.get(from - 1)) && validRatio(run.get(from - 1)) < min) {
                        from--;
                    } else if (to + 1 < run.size() && t.free(run.get(to + 1)) && validRatio(run.get(to + 1)) < min) {
                        to++;
                    } else {
                        break;
                    }
                }
                List<ComponentView> group = run.subList(from, to + 1);
                ComponentView w = run.get(worst);
                t.claim(group);
                String more = group.size() == 1 ? "" : String.format(Locale.ROOT, " with %d neighbours below it too",
                        group.size() - 1);
                add(tasks, sourceUsed, level, MergeTask.rewrite(ids(group), Placement.intoRunOf(level, w.id()),
                        output(t.tree), String.format(Locale.ROOT, "%s: %s in L%d is %.0f%% valid (< %.0f%%)%s, "
                                + "rewrite in place", name, w.id(), level, 100 * worstRatio, 100 * min, more)));
            }
        }
    }

    /** Most files one garbage-collecting rewrite takes ({@link #garbage}): the worst and its neighbours below the minimum. */
    static final int GARBAGE_BATCH_FILES = 8;

    /** A file's logical bytes ÷ its physical bytes (below 1 when dead pages take space). */
    private static double validRatio(ComponentView c) {
        return (double) c.sizeBytes() / Math.max(1, c.physicalBytes());
    }

    /** Staleness and the tombstone triggers: per-file conditions, most urgent file first. */
    private void perFile(TreeShape t, List<MergeTask> tasks, boolean[] sourceUsed, TriggerKind trigger) {
        long now = t.tree.nowMillis();
        List<ComponentView> due = new ArrayList<>();
        List<Integer> levelOf = new ArrayList<>();
        for (int level = 0; level <= t.lastLevel; level++) {
            for (RunView r : t.runs(level)) {
                for (ComponentView c : r.components()) {
                    if (t.free(c) && FileRanking.due(trigger, cfg, c, level, t.lastLevel, now)) {
                        due.add(c);
                        levelOf.add(level);
                    }
                }
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < due.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing(i -> due.get(i), FileRanking.urgency(trigger)));
        for (int i : order) {
            int level = levelOf.get(i);
            ComponentView f = due.get(i);
            if (sourceUsed[level] || !t.free(f) || t.runs(level).size() != 1 && t.shape(level) == LevelShape.LEVELED) {
                continue;
            }
            String why = name + ": " + trigger.xmlName() + " fires for " + f.id() + " in L" + level;
            MergeTask task;
            if (level == t.lastLevel) {
                // Nothing below: rewrite the file in place, which drops its tombstones (bottommost).
                if (trigger == TriggerKind.STALENESS || !t.mainRun(level).components().contains(f)) {
                    continue; // only the oldest run of the last level is bottommost
                }
                if (!FileRanking.bottommostRetryDue(cfg, f, now)) {
                    continue; // written by a bottommost merge that had to keep its tombstones (a snapshot)
                }
                t.claim(List.of(f));
                task = MergeTask.rewrite(List.of(f.id()), Placement.intoRunOf(level, f.id()), output(t.tree),
                        why + ", rewrite in place");
            } else if (t.shape(level) == LevelShape.TIERED) {
                continue; // a tiered level moves down whole (runs trigger)
            } else {
                task = down(t, level, List.of(f), true, false, why);
            }
            add(tasks, sourceUsed, level, task);
        }
    }

    private static List<ComponentId> ids(List<ComponentView> cs) {
        List<ComponentId> out = new ArrayList<>(cs.size());
        for (ComponentView c : cs) {
            out.add(c.id());
        }
        return out;
    }

    @Override
    public String toString() {
        return name + "{" + cfg.triggers() + ", " + cfg.layout() + ", " + cfg.granularity().xmlName() + ", "
                + cfg.movement().xmlName() + ", T=" + cfg.sizeRatio() + "}";
    }
}
