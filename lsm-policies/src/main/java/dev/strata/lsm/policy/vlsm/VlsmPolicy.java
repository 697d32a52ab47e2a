package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * vLSM (seed 002; the rule is FAMILIES.md §3.1) as one picker over the policy SPI.
 *
 * <p>Level 0 is a FIFO queue of flushed SSTs: each flush is a new run, and a merge out of
 * level 0 takes exactly one SST, the oldest, with the level-1 vSSTs it overlaps. Its output
 * is cut into vSSTs by overlap with level 2 ({@link OutputSpec#maxOverlapRatio()} = f,
 * sizes in [S_m, S_M]): a vSST whose overlap ratio exceeds f when it reaches S_m is closed
 * there (poor); a good one grows while its ratio stays within f. When level 1 lacks room
 * for the next level-0 SST (N_1 + its size &gt; f·S_M), good vSSTs — overlap with level 2
 * per byte at most f — are taken in ascending overlap ratio until they hold S_M bytes and
 * merged into level 2 (poor vSSTs wait to be re-cut by the next level-0 merge; only when
 * level 1 holds no good vSST are poor ones taken, so level 0 always drains). Level 2 and
 * below are leveled with file granularity: a level over its capacity (level 2: Φ·f·S_M,
 * then f times more per level) merges the file with the least overlap ratio into the next
 * level, or moves it there when it overlaps nothing; outputs are S_M-sized SSTs.
 *
 * <p>Decisions on the paper's gaps (FAMILIES.md §5.4): overlap is a ratio of bytes; the
 * level-0 queue limit is a parameter ({@code l0-max-files}); the level-1 → level-2 merge
 * cuts its output before every level-2 file between its inputs that it does not merge, so
 * outputs never overlap level-2 files they did not read. Not thread safe; the engine calls
 * it from one thread at a time.
 */
public final class VlsmPolicy implements MergePolicy {
    private final VlsmConfig config;

    public VlsmPolicy(VlsmConfig config) {
        this.config = config;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        Set<ComponentId> claimed = new HashSet<>();
        for (ComponentView c : tree.components()) {
            if (c.busy()) {
                claimed.add(c.id());
            }
        }
        for (var running : tree.runningMerges()) {
            if (running.placement().anchor() != null) {
                claimed.add(running.placement().anchor()); // a running merge lands beside it: keep it in place
            }
        }
        List<MergeTask> tasks = new ArrayList<>();
        for (int level = 1; level < tree.levels().size(); level++) {
            MergeTask collapse = collapseRuns(tree, level, claimed);
            if (collapse != null) {
                tasks.add(collapse.withPriority(2));
                claim(collapse, claimed);
            }
        }
        MergeTask top = mergeOutOfLevel0(tree, claimed);
        if (top != null) {
            tasks.add(top.withPriority(1));
            claim(top, claimed);
        }
        int deepest = tree.levels().size() - 1;
        for (int level = 2; level <= deepest; level++) {
            MergeTask t = mergeDown(tree, level, claimed);
            if (t != null) {
                tasks.add(t);
                claim(t, claimed);
            }
        }
        return tasks;
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        if (tree.level(0).componentCount() < config.l0MaxFiles()) {
            return WriteAdmission.GO;
        }
        for (ComponentView c : tree.components()) {
            if (c.busy()) {
                return WriteAdmission.STOP;
            }
        }
        return tree.runningMerges().isEmpty() ? WriteAdmission.GO : WriteAdmission.STOP;
    }

    /**
     * vLSM keeps one run per level below level 0. A store reopened with vlsm after another
     * policy (a tiered one) may hold several at a level; a merge into that level's oldest run
     * would then land below newer runs it overlaps. So such a level is first merged into one
     * run (its oldest), once, cut into SSTs; nothing else touches it meanwhile.
     */
    private MergeTask collapseRuns(TreeView tree, int level, Set<ComponentId> claimed) {
        List<RunView> runs = tree.level(level).runs();
        if (runs.size() < 2 || anyClaimed(runs, claimed)) {
            return null;
        }
        List<ComponentView> all = new ArrayList<>();
        runs.forEach(r -> all.addAll(r.components()));
        ComponentId anchor = runs.get(runs.size() - 1).components().get(0).id();
        return MergeTask.rewrite(ids(all), Placement.intoRunOf(level, anchor), OutputSpec.maxFileBytes(config.sstBytes()),
                String.format("vlsm: level %d holds %d runs (a tree another policy shaped); merge them into one", level,
                        runs.size()));
    }

    // ---- level 0 -> level 1, or level 1 -> level 2 to make room ----

    private MergeTask mergeOutOfLevel0(TreeView tree, Set<ComponentId> claimed) {
        List<RunView> level0 = tree.level(0).runs();
        if (level0.isEmpty() || anyClaimed(tree.level(0).runs(), claimed) || anyClaimed(tree.level(1).runs(),
                claimed)) {
            return null; // one merge through levels 0 and 1 at a time
        }
        List<ComponentView> oldest = level0.get(level0.size() - 1).components();
        long incoming = bytes(oldest);
        RunView level1 = run(tree, 1);
        long n1 = tree.level(1).sizeBytes();
        if (level1 != null && n1 + incoming > config.level1Bytes()) {
            return level1ToLevel2(tree, level1, claimed, n1, incoming);
        }
        List<ComponentView> inputs = new ArrayList<>(oldest);
        if (level1 != null) {
            inputs.addAll(level1.overlapping(minKey(oldest), maxKey(oldest)));
        }
        OutputSpec vssts = OutputSpec.maxFileBytes(config.sstBytes()).withMinFileBytes(config.minVsstBytes())
                .withMaxOverlapRatio(config.growth());
        return MergeTask.rewrite(ids(inputs), into(level1, 1, inputs), vssts, String.format(
                "vlsm: oldest level-0 SST %s with %d overlapping vSSTs into level 1", oldest.get(0).id(),
                inputs.size() - oldest.size()));
    }

    private MergeTask level1ToLevel2(TreeView tree, RunView level1, Set<ComponentId> claimed, long n1, long incoming) {
        RunView level2 = run(tree, 2);
        record Candidate(ComponentView vsst, List<ComponentView> below, double ratio) {
        }
        List<Candidate> candidates = new ArrayList<>();
        for (ComponentView v : level1.components()) {
            List<ComponentView> below = level2 == null ? List.of() : level2.overlapping(v.minKey(), v.maxKey());
            if (!claimed.contains(v.id()) && below.stream().noneMatch(c -> claimed.contains(c.id()))) {
                candidates.add(new Candidate(v, below, (double) bytes(below) / Math.max(1, v.sizeBytes())));
            }
        }
        candidates.sort(Comparator.comparingDouble(Candidate::ratio));
        boolean anyGood = candidates.stream().anyMatch(c -> c.ratio <= config.growth());
        List<ComponentView> chosen = new ArrayList<>();
        Set<ComponentView> below = new LinkedHashSet<>();
        long taken = 0;
        for (Candidate c : candidates) {
            if (taken >= config.sstBytes() || (anyGood && c.ratio > config.growth())) {
                break;
            }
            chosen.add(c.vsst);
            below.addAll(c.below);
            taken += c.vsst.sizeBytes();
        }
        if (chosen.isEmpty()) {
            return null;
        }
        List<ComponentView> inputs = new ArrayList<>(chosen);
        inputs.addAll(below);
        byte[] lo = minKey(inputs);
        byte[] hi = maxKey(inputs);
        List<byte[]> cuts = new ArrayList<>();
        if (level2 != null) {
            for (ComponentView c : level2.overlapping(lo, hi)) {
                if (!below.contains(c)) {
                    cuts.add(c.minKey()); // never write across a level-2 file this merge does not read
                }
            }
        }
        return MergeTask.rewrite(ids(inputs), into(level2, 2, inputs), OutputSpec.maxFileBytes(config.sstBytes())
                .withCutKeys(cuts), String.format("vlsm: level 1 lacks room (%d + %d > %d): %d %s vSSTs (%d bytes) "
                        + "with %d level-2 SSTs into level 2", n1, incoming, config.level1Bytes(), chosen.size(),
                anyGood ? "good" : "poor (no good one)", taken, below.size()));
    }

    // ---- level 2 and below: leveled, file granularity, least overlap ratio ----

    private MergeTask mergeDown(TreeView tree, int level, Set<ComponentId> claimed) {
        long size = tree.level(level).sizeBytes();
        if (size <= config.capacity(level) || tree.level(level).runs().size() != 1) {
            return null;
        }
        RunView next = run(tree, level + 1);
        ComponentView best = null;
        List<ComponentView> bestBelow = null;
        double bestRatio = Double.MAX_VALUE;
        for (ComponentView c : run(tree, level).components()) {
            List<ComponentView> below = next == null ? List.of() : next.overlapping(c.minKey(), c.maxKey());
            if (claimed.contains(c.id()) || below.stream().anyMatch(b -> claimed.contains(b.id()))) {
                continue;
            }
            double ratio = (double) bytes(below) / Math.max(1, c.sizeBytes());
            if (ratio < bestRatio) {
                best = c;
                bestBelow = below;
                bestRatio = ratio;
            }
        }
        if (best == null) {
            return null;
        }
        String why = String.format("vlsm: level %d over capacity (%d > %d), least overlap ratio %.2f", level, size,
                config.capacity(level), bestRatio);
        if (bestBelow.isEmpty()) {
            return MergeTask.move(List.of(best.id()), into(next, level + 1, List.of()),
                    why + "; overlaps nothing: move");
        }
        List<ComponentView> inputs = new ArrayList<>(bestBelow);
        inputs.add(0, best);
        return MergeTask.rewrite(ids(inputs), into(next, level + 1, inputs),
                OutputSpec.maxFileBytes(config.sstBytes()), why);
    }

    // ---- helpers ----

    /** Claims a task's inputs and its anchor: no other task of this round may merge or move either. */
    private static void claim(MergeTask t, Set<ComponentId> claimed) {
        claimed.addAll(t.inputs());
        if (t.placement().anchor() != null) {
            claimed.add(t.placement().anchor());
        }
    }

    private static RunView run(TreeView tree, int level) {
        List<RunView> runs = tree.level(level).runs();
        return runs.isEmpty() ? null : runs.get(runs.size() - 1);
    }

    /** Into {@code run} at {@code level}, anchored on one of {@code inputs} in it if any (that cannot move meanwhile). */
    private static Placement into(RunView run, int level, List<ComponentView> inputs) {
        if (run == null || run.components().isEmpty()) {
            return Placement.newRun(level);
        }
        for (ComponentView c : inputs) {
            if (run.components().contains(c)) {
                return Placement.intoRunOf(level, c.id());
            }
        }
        return Placement.intoRunOf(level, run.components().get(0).id());
    }

    private static boolean anyClaimed(List<RunView> runs, Set<ComponentId> claimed) {
        for (RunView r : runs) {
            for (ComponentView c : r.components()) {
                if (claimed.contains(c.id())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<ComponentId> ids(List<ComponentView> cs) {
        return cs.stream().map(ComponentView::id).toList();
    }

    private static long bytes(List<ComponentView> cs) {
        long s = 0;
        for (ComponentView c : cs) {
            s += c.sizeBytes();
        }
        return s;
    }

    private static byte[] minKey(List<ComponentView> cs) {
        return cs.stream().map(ComponentView::minKey).min(Arrays::compareUnsigned).orElseThrow();
    }

    private static byte[] maxKey(List<ComponentView> cs) {
        return cs.stream().map(ComponentView::maxKey).max(Arrays::compareUnsigned).orElseThrow();
    }
}
