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
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * vLSM (seed 002; the rule is FAMILIES.md §3.1) as one picker over the policy SPI.
 *
 * <p>Level 0 is a FIFO queue of flushed SSTs: each flush is a new run (with {@code split-flush},
 * a run of SSTs of at most S_M, {@link #flushTableBytes()}), and a merge out of level 0 takes
 * exactly one SST, the oldest (the oldest run's first in key order), with the level-1 vSSTs it
 * overlaps. Its output
 * is cut into vSSTs by overlap with level 2, sizes in [S_m, S_M]: with {@code overlap=count}
 * (the default; {@link OutputSpec#maxOverlapFiles()} = f) O is the number of level-2 SSTs
 * the vSST's range intersects; with {@code overlap=bytes} ({@link OutputSpec#maxOverlapRatio()}
 * = f) it is the level-2 bytes it intersects per byte of its own. A vSST whose O exceeds f
 * when it reaches S_m is closed there (poor); a good one grows while the next entry keeps
 * O ≤ f and its size ≤ S_M. When level 1 lacks room for the next level-0 SST
 * (N_1 + its size &gt; f·S_M), one contiguous window of good vSSTs (O ≤ f, same reading)
 * holding at least S_M bytes — the one whose level-2 overlap in bytes per byte moved is the
 * lowest — is merged into level 2 (see {@link #level1ToLevel2}). Level 2 and below are leveled
 * with file granularity: a level over its capacity (level 2: Φ·f·S_M, then f times more per
 * level) merges the file with the least overlap ratio into the next level, or moves it there
 * when it overlaps nothing; outputs are S_M-sized SSTs.
 *
 * <p>Decisions on the paper's gaps (FAMILIES.md §5.4, §3.6): overlap is a count of level-2
 * SSTs (§3.1 step 2, corrected; bytes stay a parameter); the level-1 → level-2 pick is one
 * contiguous window (scattered picks each drag in their own edge file of level 2); poor vSSTs
 * are taken only when level 1 holds no idle good vSST, so that level 0 always drains (the paper
 * re-cuts them, which needs room in level 1); the level-0 queue limit is a parameter
 * ({@code l0-max-files}); a window reads every level-2 SST its key range intersects, so its
 * outputs never overlap level-2 files it did not read.
 *
 * <p>Merges are labelled by kind ({@code StoreStats.bytesWrittenByKind()}): {@value #KIND_L0},
 * {@value #KIND_L1}, {@value #KIND_DOWN} and {@value #KIND_COLLAPSE}. The instance keeps a
 * {@link VlsmCensus} of the level-1 vSSTs its decisions saw and of its completed level-1 →
 * level-2 merges ({@link #census()}).
 *
 * <p>The engine calls the decision methods from one thread at a time; {@link #census()} may be
 * called from any thread.
 */
public final class VlsmPolicy implements MergePolicy {
    /** Kind label of a merge of the oldest level-0 SST into level 1. */
    public static final String KIND_L0 = "l0-to-l1";
    /** Kind label of a level-1 window merged into level 2. */
    public static final String KIND_L1 = "l1-to-l2";
    /** Kind label of a leveled merge or move from level 2 down. */
    public static final String KIND_DOWN = "leveled";
    /** Kind label of the merge that joins several runs of one level (a tree another policy shaped). */
    public static final String KIND_COLLAPSE = "collapse-runs";

    private final VlsmConfig config;
    /** Level-1 vSSTs already counted in the census: those in level 1 at the last decision. */
    private Set<ComponentId> level1Seen = new HashSet<>();
    /** Level-1 → level-2 merges issued and not yet seen complete, by their level-1 inputs. */
    private final Map<Set<ComponentId>, long[]> pendingWindows = new HashMap<>();
    private VlsmCensus census = VlsmCensus.EMPTY;

    public VlsmPolicy(VlsmConfig config) {
        this.config = config;
    }

    /** What this instance has counted so far (see {@link VlsmCensus}); safe from any thread. */
    public synchronized VlsmCensus census() {
        return census;
    }

    /**
     * Counts the level-1 vSSTs not seen at the last decision (written since by a level-0 →
     * level-1 merge) against level 2 as it is now, and the level-1 → level-2 merges whose
     * level-1 inputs have all left level 1.
     */
    private synchronized void observe(TreeView tree) {
        RunView level1 = tree.level(1).runs().size() == 1 ? run(tree, 1) : null;
        RunView level2 = tree.levels().size() > 2 ? run(tree, 2) : null;
        Set<ComponentId> now = new HashSet<>();
        Set<ComponentId> busy = new HashSet<>();
        for (ComponentView v : tree.components()) {
            if (v.busy()) {
                busy.add(v.id());
            }
        }
        VlsmCensus c = census;
        long vssts = c.vssts(), vsstBytes = c.vsstBytes(), goodCount = c.goodByCount(), goodCountBytes =
                c.goodBytesByCount(), goodBytes = c.goodByBytes(), goodBytesBytes = c.goodBytesByBytes(),
                intersected = c.level2FilesIntersected();
        if (level1 != null) {
            for (ComponentView v : level1.components()) {
                now.add(v.id());
                if (level1Seen.contains(v.id())) {
                    continue;
                }
                List<ComponentView> below = below(level2, v.minKey(), v.maxKey());
                long overlapBytes = bytes(below);
                vssts++;
                vsstBytes += v.sizeBytes();
                intersected += below.size();
                if (below.size() <= config.growth()) {
                    goodCount++;
                    goodCountBytes += v.sizeBytes();
                }
                if (overlapBytes <= (double) config.growth() * Math.max(1, v.sizeBytes())) {
                    goodBytes++;
                    goodBytesBytes += v.sizeBytes();
                }
            }
        }
        long merges = c.level1Merges(), moved = c.level1BytesMoved(), merged = c.level2BytesMerged(),
                poor = c.poorWindows();
        for (Iterator<Map.Entry<Set<ComponentId>, long[]>> it = pendingWindows.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Set<ComponentId>, long[]> e = it.next();
            if (e.getKey().stream().allMatch(id -> now.contains(id) && !busy.contains(id))) {
                it.remove(); // still in level 1 and idle: the engine refused it
            } else if (e.getKey().stream().noneMatch(now::contains)) {
                long[] w = e.getValue();
                merges++;
                moved += w[0];
                merged += w[1];
                poor += w[2];
                it.remove();
            }
        }
        level1Seen = now;
        census = new VlsmCensus(vssts, vsstBytes, goodCount, goodCountBytes, goodBytes, goodBytesBytes, intersected,
                merges, moved, merged, poor);
    }

    /** Remembers an issued level-1 → level-2 merge; one issued before over the same vSSTs was refused. */
    private synchronized void issued(List<ComponentView> window, long level2Bytes, boolean good) {
        Set<ComponentId> ids = new HashSet<>(ids(window));
        pendingWindows.keySet().removeIf(k -> k.stream().anyMatch(ids::contains));
        pendingWindows.put(ids, new long[] {bytes(window), level2Bytes, good ? 0 : 1});
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        observe(tree);
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

    /** S_M with {@code split-flush} (a flush written as SSTs of at most S_M), else one SST per flush. */
    @Override
    public long flushTableBytes() {
        return config.splitFlush() ? config.sstBytes() : Long.MAX_VALUE;
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
                        runs.size())).withKind(KIND_COLLAPSE);
    }

    // ---- level 0 -> level 1, or level 1 -> level 2 to make room ----

    private MergeTask mergeOutOfLevel0(TreeView tree, Set<ComponentId> claimed) {
        List<RunView> level0 = tree.level(0).runs();
        if (level0.isEmpty() || anyClaimed(tree.level(0).runs(), claimed) || anyClaimed(tree.level(1).runs(),
                claimed)) {
            return null; // one merge through levels 0 and 1 at a time
        }
        // One SST, the oldest: the oldest flush's, and of a flush written as several SSTs
        // (split-flush) the first in key order (the run keeps the rest until their turn).
        List<ComponentView> oldest = List.of(level0.get(level0.size() - 1).components().get(0));
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
        OutputSpec sized = OutputSpec.maxFileBytes(config.sstBytes()).withMinFileBytes(config.minVsstBytes());
        OutputSpec vssts = switch (config.overlap()) {
            case COUNT -> sized.withMaxOverlapFiles(config.growth());
            case BYTES -> sized.withMaxOverlapRatio(config.growth());
            case NONE -> OutputSpec.maxFileBytes(config.sstBytes());
        };
        return MergeTask.rewrite(ids(inputs), into(level1, 1, inputs), vssts, String.format(
                "vlsm: oldest level-0 SST %s with %d overlapping vSSTs into level 1", oldest.get(0).id(),
                inputs.size() - oldest.size())).withKind(KIND_L0);
    }

    /**
     * The level-1 → level-2 merge (FAMILIES.md §3.1 step 3, §3.6 VL3): one window of vSSTs
     * adjacent in key order, none busy nor over a busy level-2 SST, all good when level 1 holds
     * an idle good vSST (else all poor: the fallback that keeps level 0 draining). From each
     * vSST a window extends right until it holds S_M bytes or meets a vSST it may not take;
     * windows that reach S_M come first, then the lowest ratio of the level-2 bytes their key
     * range intersects to their own bytes, then the leftmost.
     */
    private MergeTask level1ToLevel2(TreeView tree, RunView level1, Set<ComponentId> claimed, long n1, long incoming) {
        RunView level2 = run(tree, 2);
        List<ComponentView> l1 = level1.components();
        int n = l1.size();
        boolean[] idle = new boolean[n];
        boolean[] good = new boolean[n];
        boolean anyGood = false;
        for (int i = 0; i < n; i++) {
            ComponentView v = l1.get(i);
            List<ComponentView> below = below(level2, v.minKey(), v.maxKey());
            idle[i] = !claimed.contains(v.id()) && below.stream().noneMatch(c -> claimed.contains(c.id()));
            good[i] = config.good(v.sizeBytes(), below.size(), bytes(below));
            anyGood |= idle[i] && good[i];
        }
        int bestFrom = -1;
        int bestTo = -1;
        boolean bestFull = false;
        double bestRatio = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (!idle[i] || good[i] != anyGood) {
                continue;
            }
            long taken = 0;
            int j = i;
            while (true) {
                taken += l1.get(j).sizeBytes();
                if (taken >= config.sstBytes() || j + 1 == n || !idle[j + 1] || good[j + 1] != anyGood) {
                    break;
                }
                j++;
            }
            boolean full = taken >= config.sstBytes();
            List<ComponentView> below = below(level2, l1.get(i).minKey(), l1.get(j).maxKey());
            if (below.stream().anyMatch(c -> claimed.contains(c.id()))) {
                continue; // a level-2 SST between two idle vSSTs is busy
            }
            double ratio = (double) bytes(below) / Math.max(1, taken);
            if ((full && !bestFull) || (full == bestFull && ratio < bestRatio)) {
                bestFrom = i;
                bestTo = j;
                bestFull = full;
                bestRatio = ratio;
            }
        }
        if (bestFrom < 0) {
            return null;
        }
        List<ComponentView> chosen = l1.subList(bestFrom, bestTo + 1);
        List<ComponentView> below = below(level2, chosen.get(0).minKey(), chosen.get(chosen.size() - 1).maxKey());
        List<ComponentView> inputs = new ArrayList<>(chosen);
        inputs.addAll(below);
        issued(chosen, bytes(below), anyGood);
        // The window reads every level-2 SST its key range intersects, so no level-2 SST lies
        // between its inputs unread: its outputs need no cut keys.
        return MergeTask.rewrite(ids(inputs), into(level2, 2, inputs), OutputSpec.maxFileBytes(config.sstBytes()),
                String.format("vlsm: level 1 lacks room (%d + %d > %d): a window of %d %s vSSTs "
                        + "(%d bytes, overlap ratio %.2f) with %d level-2 SSTs into level 2", n1, incoming,
                config.level1Bytes(), chosen.size(), anyGood ? "good" : "poor (no good one)", bytes(chosen), bestRatio,
                below.size())).withKind(KIND_L1);
    }

    private static List<ComponentView> below(RunView level2, byte[] lo, byte[] hi) {
        return level2 == null ? List.of() : level2.overlapping(lo, hi);
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
                    why + "; overlaps nothing: move").withKind(KIND_DOWN);
        }
        List<ComponentView> inputs = new ArrayList<>(bestBelow);
        inputs.add(0, best);
        return MergeTask.rewrite(ids(inputs), into(next, level + 1, inputs),
                OutputSpec.maxFileBytes(config.sstBytes()), why).withKind(KIND_DOWN);
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
