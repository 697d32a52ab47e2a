package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Spooky's partitioned merge (seed 000; the rule is FAMILIES.md §1) as one picker over the
 * policy SPI, for leveling, lazy leveling and tiering.
 *
 * <p>Level 0 holds flushed files (the RocksDB build's rLevel 0); levels 1..L are leveled,
 * L the deepest level holding data. X = max(1, L − {@code x-offset}). When level 0 has α
 * files they are merged down (§1.3, §1.4): into the smallest level q &lt; X with
 * N_0 + … + N_q &lt; C_q as one file (full preemptive merge), or else into X, cut at the
 * first keys of level L's files (dividing merge; with X = L the Full Merge baseline, one
 * file). When N_X ≥ C_X a partitioned pass begins (§1.5): for target z (the smallest level
 * in X+1..L with N_X + … + N_z &lt; C_z, else L), the files of levels X..z are grouped by
 * the level-L file whose key slice holds them, and the groups are merged into z one at a
 * time in ascending key order until levels X..z−1 are empty. Into L a group's output is cut
 * into equal files of at most C_X, and adjacent groups smaller than C_X together are merged
 * into one file. After a pass, with no merge into the lower levels running, the tree
 * evolves (§1.2): N_L ≥ C_L adds a level (level L's run moves down by a metadata-only
 * {@code MOVE}, C grows by T); N_L &lt; C_L / T removes one when level L−1 is empty.
 * Capacities of levels below L follow N_L (DCA): C_i = N_L / T^(L−i), taken from N_L when
 * the pass began so that they do not move in mid-pass.
 *
 * <p>Decisions on the papers' ambiguities (FAMILIES.md §1.2, §1.3, §1.5): the inequalities
 * are the prose's (Σ N_i &lt; C_q), the evolution steps run after a complete pass, and the
 * C_X cap applies only when z = L (below L outputs are cut at level-L boundaries). A group
 * whose projected output exceeds C_X is cut into the fewest equal files of at most C_X: two
 * halves in the paper's steady state. The intra-L0 merge of §1.7 is built
 * ({@code intra-l0-merge}), and so is the flush-as-own-file skew option of §1.4
 * ({@code flush-as-own-file}, off by default as in the paper's headline runs): flushes land
 * in level 0, and when the files going down share no key range with each other or with the
 * target's files, they are moved there instead of merged.
 *
 * <p>Lazy leveling and tiering (§1.8, seed 000 §4.4, Fig. 12): a level above the largest
 * (lazy leveling), or any level (tiering), is tiered — a merge into it adds a new run and reads
 * none of its runs. A full preemptive merge into a tiered q merges levels 0..q−1 into a new run
 * at q (same choice of q); a dividing merge makes levels 0..X−1 a new run at X, cut at the
 * files of the oldest run at L; a pass into a tiered z takes, group by group in key order, the
 * slice of every run at X..z−1 and extends one new run at z, cut the same way (the paper's
 * "add one run to level L"); into a leveled L (lazy leveling) a group takes its slice of every
 * run with the level-L file, as under leveling. Groups are always the slices of the oldest run
 * at L. [NOT IN PAPER] What tiering does when L fills: when L holds several runs and
 * N_L ≥ C_L (or N_L &lt; C_L / T) a bottom pass merges levels X..L−1 and L's runs, slice by
 * slice, into one new run of L with files of at most C_X (as a pass into a leveled L); the
 * level is then added or removed by a move as under leveling. Classic tiering merges a full
 * level into a new run one level down; the bottom pass does the same group by group, so its
 * transient space stays one group's, and taking X..L−1 with it keeps every file above L inside
 * one slice of the new oldest run. A pass's output run is told apart from older runs by
 * creation order (components created after the pass began; only the pass writes to X..L).
 *
 * <p>Concurrency (§1.6): at most one merge out of level 0 and one partitioned merge run at
 * once, and no merge into X starts while a pass is in progress, so at most three files are
 * written at any instant (with the flush) — four while an intra-L0 merge runs beside a full
 * preemptive merge, the paper's build's three compactions (§5 "Concurrency": partitioned, full
 * preemptive and level-0 compactions). With the engine's two merge threads (the factory's
 * {@code mergeThreads} hint) a partitioned merge and a merge out of level 0 run side by side.
 * Not thread safe; the engine calls it from one thread at a time.
 */
public final class SpookyPolicy implements MergePolicy {
    /**
     * The kinds Spooky labels its merges with ({@code MergeTask.kind()}, counted in
     * {@code StoreStats.bytesWrittenByKind()}): a full preemptive merge (into q &lt; X, and with
     * X = L — Full Merge, or a tree too small for X &lt; L — the merge of levels 0..L into L), a
     * dividing merge into X &lt; L, a partitioned merge of a pass, and the intra-L0 merge.
     * Moves write nothing and are not labelled.
     */
    public static final String FULL_PREEMPTIVE = "full-preemptive";
    /** See {@link #FULL_PREEMPTIVE}. */
    public static final String DIVIDING = "dividing";
    /** See {@link #FULL_PREEMPTIVE}. */
    public static final String PARTITIONED = "partitioned";
    /** See {@link #FULL_PREEMPTIVE}. */
    public static final String INTRA_L0 = "intra-l0";

    private final SpookyConfig config;
    private final SpookyState state = new SpookyState();

    public SpookyPolicy(SpookyConfig config) {
        this.config = config;
    }

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        state.load(tree.policyState());
        StoreSettings settings = tree.settings();
        state.memtableBytes = settings.knowsMemtableBytes()
                ? settings.memtableBytes()
                : Math.max(state.memtableBytes, flushed.sizeBytes());
        return FlushPlan.newComponent(Placement.newRun(0), "spooky: flush into level 0");
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        state.load(tree.policyState());
        Shape s = new Shape(tree);
        List<MergeTask> tasks = new ArrayList<>();
        if (state.passActive && passFinished(s)) {
            state.endPass();
        }
        MergeTask evolution = evolve(s);
        if (evolution != null) {
            tasks.add(evolution);
            return tasks;
        }
        MergeTask partitioned = partitioned(s);
        if (partitioned != null) {
            tasks.add(partitioned);
        }
        MergeTask upper = mergeLevel0(s);
        if (upper != null) {
            tasks.add(upper.withPriority(1)); // level 0 drains first: writers wait on it
        }
        return tasks;
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        int files = tree.level(0).componentCount();
        boolean merging = false;
        for (ComponentView c : tree.components()) {
            merging |= c.busy();
        }
        if (files >= config.l0StopTrigger() && (merging || !tree.runningMerges().isEmpty())) {
            return WriteAdmission.STOP;
        }
        return files >= config.l0SlowdownTrigger() ? WriteAdmission.SLOW_DOWN : WriteAdmission.GO;
    }

    /**
     * How far level 0's files are from β (the slowdown trigger) towards the stop trigger: 0 at
     * β, 1 at the stop, so the engine paces writers more slowly the nearer they are to it.
     *
     * @param tree the tree now
     * @return from 0 to 1
     */
    @Override
    public double slowdownDepth(TreeView tree) {
        return WriteAdmission.depthBetween(tree.level(0).componentCount(), config.l0SlowdownTrigger(),
                config.l0StopTrigger());
    }

    @Override
    public byte[] persistentState(TreeView tree) {
        state.load(tree.policyState());
        return state.encode();
    }

    // ---- tree evolution (§1.2) ----

    private MergeTask evolve(Shape s) {
        if (state.passActive || s.busyFrom(Math.max(1, Math.min(s.x, s.largest - 1))) || s.writingBelowLevel0()) {
            return null;
        }
        List<RunView> runs = s.tree.level(s.largest).runs();
        long capacity = s.capacity(s.largest);
        if (runs.size() > 1 && s.tiered(s.largest)) {
            // Tiering: the largest level's runs are merged into one new run of it, group by group
            // (a bottom pass, see partitioned), when the level is full or has shrunk below C_L / T;
            // with one run left the level is then added or removed as under leveling.
            if (s.bytes(s.largest) >= capacity || s.bytes(s.largest) < capacity / config.sizeRatio()) {
                state.beginPass(s.largest, s.bytes(s.largest), true, s.maxCreationOrder());
            }
            return null;
        }
        if (runs.size() != 1 || s.bytes(s.largest) == 0) {
            return null;
        }
        List<ComponentId> ids = ids(runs.get(0).components());
        if (s.bytes(s.largest) >= capacity) {
            return MergeTask.move(ids, Placement.newRun(s.largest + 1), String.format(
                    "spooky: add level %d (N_L=%d >= C_L=%d)", s.largest + 1, s.bytes(s.largest), capacity));
        }
        if (s.largest >= 2 && s.bytes(s.largest) < capacity / config.sizeRatio()
                && s.tree.level(s.largest - 1).componentCount() == 0) {
            return MergeTask.move(ids, Placement.newRun(s.largest - 1), String.format(
                    "spooky: remove level %d (N_L=%d < C_L/T=%d)", s.largest, s.bytes(s.largest),
                    capacity / config.sizeRatio()));
        }
        return null;
    }

    // ---- merges out of level 0 (§1.3, §1.4) ----

    private MergeTask mergeLevel0(Shape s) {
        MergeTask down = mergeLevel0Down(s);
        return down != null ? down : intraLevel0(s);
    }

    /**
     * The intra-L0 merge of the paper's RocksDB build (§5 "Avoiding Stalling", FAMILIES.md
     * §1.7): while a full preemptive merge runs — a merge out of level 0 into a level q &lt; X,
     * or with X = L (Full Merge) into L — α or more idle level-0 files of about equal size
     * (largest ≤ 2 × smallest), created consecutively (the newest ones), are merged into one
     * file that takes the newest one's place in level 0. Writers then wait for fewer files.
     * Not while only a partitioned merge or a dividing merge into X &lt; L runs, nor while a
     * pass holds X: the paper names the full preemptive merge alone, and §5's three concurrent
     * compactions are one partitioned, one full preemptive and one level-0 compaction.
     */
    private MergeTask intraLevel0(Shape s) {
        if (!config.intraL0Merge() || !s.fullPreemptiveRunning()) {
            return null;
        }
        List<RunView> runs = s.tree.level(0).runs();
        List<ComponentView> picked = new ArrayList<>();
        long min = Long.MAX_VALUE;
        long max = 0;
        for (RunView r : runs) { // newest first
            if (r.busy() || r.components().size() != 1) {
                break;
            }
            ComponentView c = r.components().get(0);
            long lo = Math.min(min, c.sizeBytes());
            long hi = Math.max(max, c.sizeBytes());
            if (hi > 2 * lo) {
                break;
            }
            min = lo;
            max = hi;
            picked.add(c);
        }
        if (picked.size() < config.l0CompactionTrigger()) {
            return null;
        }
        return rewrite(INTRA_L0, ids(picked), Placement.intoRunOf(0, picked.get(0).id()), OutputSpec.singleFile(),
                String.format("spooky: intra-L0 merge of %d idle level-0 files (%d..%d bytes) while a full preemptive merge runs",
                        picked.size(), min, max));
    }

    private MergeTask mergeLevel0Down(Shape s) {
        List<ComponentView> level0 = s.tree.level(0).runs().stream().flatMap(r -> r.components().stream()).toList();
        if (level0.size() < config.l0CompactionTrigger() || s.anyBusy(level0)) {
            return null;
        }
        long sum = s.bytes(0);
        for (int q = 1; q < s.x; q++) {
            sum += s.bytes(q);
            if (sum < s.capacity(q)) {
                if (s.busyBetween(1, q)) {
                    return null;
                }
                MergeTask move = moveDisjoint(s, q);
                if (move != null) {
                    return move;
                }
                if (s.tiered(q)) {
                    return rewrite(FULL_PREEMPTIVE, s.inputs(0, q - 1), Placement.newRun(q), OutputSpec.singleFile(),
                            String.format("spooky: full preemptive merge of levels 0..%d into a new run at %d (%d < C_%d=%d)",
                                    q - 1, q, sum, q, s.capacity(q)));
                }
                return rewrite(FULL_PREEMPTIVE, s.inputs(0, q), Placement.newRun(q), OutputSpec.singleFile(), String.format(
                        "spooky: full preemptive merge of levels 0..%d into %d (%d < C_%d=%d)", q, q, sum, q,
                        s.capacity(q)));
            }
        }
        if (state.passActive || s.busyFrom(1)) {
            // Merges into X wait for the partitioned pass out of X (§1.6), and for a move of
            // level L: their cut at L's files is taken when they start, and a level added or
            // removed meanwhile would leave nothing at the level they name (X may be empty,
            // so the merge itself holds nothing the move could see).
            return null;
        }
        MergeTask move = moveDisjoint(s, s.x);
        if (move != null) {
            return move;
        }
        if (s.tiered(s.x)) {
            // Lazy leveling and tiering (§1.8): levels 0..X−1 become a new run at X, cut at the
            // files of the oldest run at L (one file when X is L itself).
            OutputSpec cut = s.x >= s.largest ? OutputSpec.singleFile()
                    : OutputSpec.singleFile().withCutKeys(s.sliceStarts());
            return rewrite(s.x >= s.largest ? FULL_PREEMPTIVE : DIVIDING, s.inputs(0, s.x - 1), Placement.newRun(s.x), cut, String.format(
                    "spooky: dividing merge of levels 0..%d into a new run at X=%d%s", s.x - 1, s.x,
                    s.x >= s.largest ? " (X = L)" : ", cut at the oldest level-" + s.largest + " run's files"));
        }
        if (s.x >= s.largest) {
            return rewrite(FULL_PREEMPTIVE, s.inputs(0, s.x), Placement.newRun(s.x), OutputSpec.singleFile(), String.format(
                    "spooky: full merge of levels 0..%d into %d (X = L)", s.x, s.x));
        }
        return rewrite(DIVIDING, s.inputs(0, s.x), Placement.newRun(s.x), OutputSpec.singleFile().alignedTo(s.largest),
                String.format("spooky: dividing merge of levels 0..%d into X=%d, cut at level-%d files", s.x, s.x,
                        s.largest));
    }

    /**
     * The flush-as-own-file skew option (§1.4, seed 000 §4.3 and Fig. 11B; {@code
     * flush-as-own-file}): when the files going down (levels 0..t−1) and the target level t's
     * files (under leveling) have pairwise disjoint key ranges — sequential inserts — they are
     * moved into t (metadata only) instead of merged. Into X, each moved file must lie within
     * one slice of the oldest level-L run, as a dividing merge's outputs do. Null when off or
     * when anything overlaps.
     */
    private MergeTask moveDisjoint(Shape s, int target) {
        if (!config.flushAsOwnFile()) {
            return null;
        }
        boolean tiered = s.tiered(target);
        List<ComponentView> moving = new ArrayList<>();
        for (int l = 0; l < target; l++) {
            for (RunView r : s.tree.level(l).runs()) {
                moving.addAll(r.components());
            }
        }
        List<ComponentView> staying = new ArrayList<>();
        if (!tiered) {
            for (RunView r : s.tree.level(target).runs()) {
                staying.addAll(r.components());
            }
        }
        List<ComponentView> all = new ArrayList<>(moving);
        all.addAll(staying);
        all.sort((a, b) -> Arrays.compareUnsigned(a.minKey(), b.minKey()));
        for (int i = 1; i < all.size(); i++) {
            if (Arrays.compareUnsigned(all.get(i - 1).maxKey(), all.get(i).minKey()) >= 0) {
                return null;
            }
        }
        if (target >= s.x && s.x < s.largest) {
            byte[][] starts = s.sliceTable();
            for (ComponentView c : moving) {
                if (slice(starts, c.minKey()) != slice(starts, c.maxKey())) {
                    return null; // it would span two level-L slices
                }
            }
        }
        Placement p = staying.isEmpty() ? Placement.newRun(target) : Placement.intoRunOf(target, staying.get(0).id());
        return MergeTask.move(ids(moving), p, String.format(
                "spooky: flush as its own file: move %d files of levels 0..%d into %d (no key ranges overlap)",
                moving.size(), target - 1, target));
    }

    // ---- partitioned merges out of X (§1.5) ----

    private MergeTask partitioned(Shape s) {
        if (!state.passActive) {
            if (s.x >= s.largest || s.bytes(s.x) == 0 || s.bytes(s.x) < s.capacity(s.x) || s.busyBetween(s.x, s.x)) {
                return null;
            }
            state.beginPass(targetLevel(s), s.bytes(s.largest), false, s.maxCreationOrder());
        }
        int from = s.x;
        int z = state.passBottom ? s.largest : Math.min(state.passTarget, s.largest);
        if (!state.passBottom && z <= s.x) {
            state.endPass();
            return null;
        }
        if (s.busyBetween(from, z)) {
            return null; // one partitioned merge at a time
        }
        if (s.tiered(z) && !state.passBottom) {
            return intoNewRun(s, z);
        }
        List<Group> groups = groups(s, from, z);
        int first = -1;
        for (int i = 0; i < groups.size() && first < 0; i++) {
            if (eligible(groups.get(i), z == s.largest) && unvisited(groups.get(i))) {
                first = i;
            }
        }
        for (int i = 0; i < groups.size() && first < 0; i++) {
            if (groups.get(i).hasNewData) { // wrap around: data arrived before the cursor (a restart)
                first = i;
            }
        }
        if (first < 0) {
            return null;
        }
        Group g = groups.get(first);
        List<ComponentView> inputs = new ArrayList<>(g.members);
        long projected = g.bytes;
        int last = first;
        OutputSpec output;
        long fileMax = s.capacity(s.x);
        if (z == s.largest) {
            // Seamless adaptation merges small neighbours, but never pulls in a group the skew
            // optimization leaves untouched (no new data): SP6 bounds the files a pass rewrites.
            while (last + 1 < groups.size() && projected + groups.get(last + 1).bytes < fileMax
                    && eligible(groups.get(last + 1), true)) {
                last++;
                inputs.addAll(groups.get(last).members);
                projected += groups.get(last).bytes;
            }
            long files = Math.max(1, (projected + fileMax - 1) / fileMax);
            output = files == 1 ? OutputSpec.singleFile() : OutputSpec.maxFileBytes((projected + files - 1) / files);
        } else {
            output = OutputSpec.singleFile().alignedTo(s.largest);
        }
        if (last + 1 < groups.size()) {
            state.passCursor = groups.get(last + 1).from.clone();
        } else {
            state.passWrapped = true; // every group visited once; what is left is picked in key order
        }
        Placement placement;
        if (state.passBottom) {
            placement = s.passOutput(z);
        } else {
            List<ComponentView> targetRun = s.run(z);
            placement = targetRun.isEmpty() ? Placement.newRun(z) : Placement.intoRunOf(z, targetRun.get(0).id());
        }
        return rewrite(PARTITIONED, ids(inputs), placement, output, String.format(
                "spooky: partitioned merge of %s, groups %d..%d of %d into %s (%d bytes, file max %d)",
                state.passBottom ? "levels " + s.x + ".." + z + " with the runs of level " + z : "levels " + s.x + ".." + z, first + 1, last + 1,
                groups.size(), state.passBottom ? "a new run at " + z : Integer.toString(z), projected, fileMax));
    }

    /**
     * A partitioned merge into a tiered level z (§1.8): the next group of levels X..z−1 (every
     * run) in key order becomes part of one new run at z, which the pass extends group by
     * group; z's older runs are not read. Outputs are cut at the oldest level-L run's files.
     */
    private MergeTask intoNewRun(Shape s, int z) {
        List<Group> groups = groups(s, s.x, z);
        Group g = null;
        int index = 0;
        for (int i = 0; i < groups.size() && g == null; i++) {
            if (unvisited(groups.get(i))) {
                g = groups.get(i);
                index = i;
            }
        }
        if (g == null && !groups.isEmpty()) {
            g = groups.get(0); // data before the cursor (a restart): picked in key order
        }
        if (g == null) {
            return null;
        }
        if (index + 1 < groups.size()) {
            state.passCursor = groups.get(index + 1).from.clone();
        } else {
            state.passWrapped = true;
        }
        return rewrite(PARTITIONED, ids(g.members), s.passOutput(z), OutputSpec.singleFile().withCutKeys(s.sliceStarts()),
                String.format("spooky: partitioned merge of levels %d..%d, group %d of %d into a new run at %d "
                        + "(%d bytes, cut at the oldest level-%d run's files)", s.x, z - 1, index + 1, groups.size(),
                        z, g.bytes, s.largest));
    }

    /** Groups with new data always; into L without skew optimizations also the others (rewritten alone). */
    private boolean eligible(Group g, boolean intoLargest) {
        return g.hasNewData || (intoLargest && !config.skewOptimizations());
    }

    /** Whether the pass has not visited {@code g} yet (groups are visited in ascending key order). */
    private boolean unvisited(Group g) {
        if (state.passWrapped) {
            return false;
        }
        if (state.passCursor == null) {
            return true;
        }
        return g.from != null && Arrays.compareUnsigned(g.from, state.passCursor) >= 0;
    }

    /**
     * Whether levels X..z−1 are empty (and, without skew optimizations, every group was
     * visited); for a bottom pass, whether only its new run is left at L.
     */
    private boolean passFinished(Shape s) {
        if (state.passBottom) {
            return !s.busyBetween(s.x, s.largest) && !s.holdsOlderThanPass(s.largest)
                    && s.emptyBetween(s.x, s.largest - 1);
        }
        int z = Math.min(state.passTarget, s.largest);
        if (s.busyBetween(s.x, Math.max(s.x, z)) || !s.emptyBetween(s.x, z - 1)) {
            return false;
        }
        return config.skewOptimizations() || state.passWrapped || s.tiered(z);
    }

    /** z: the smallest level in X+1..L with N_X + … + N_z &lt; C_z, else L. */
    private int targetLevel(Shape s) {
        long sum = s.bytes(s.x);
        for (int z = s.x + 1; z < s.largest; z++) {
            sum += s.bytes(z);
            if (sum < s.capacity(z)) {
                return z;
            }
        }
        return s.largest;
    }

    /**
     * The groups of levels X..z in key order: level L's files cut the key space into slices
     * (each from a file's first key to the next file's); a file of X..z belongs to the slices
     * its key range touches, and slices sharing a file form one group. With z = L, every
     * level-L file is in its slice's group, so a group may hold no new data.
     */
    private List<Group> groups(Shape s, int from, int z) {
        byte[][] starts = s.sliceTable();
        int slices = starts.length;
        int[] reach = new int[slices];
        for (int i = 0; i < slices; i++) {
            reach[i] = i;
        }
        List<List<ComponentView>> bySlice = new ArrayList<>();
        boolean[] fresh = new boolean[slices];
        for (int i = 0; i < slices; i++) {
            bySlice.add(new ArrayList<>());
        }
        // A bottom pass groups levels X..L−1 and the largest level's runs from before the pass
        // (all of it new data to the pass's run); a pass into a tiered level leaves that level's
        // runs alone.
        boolean bottomPass = state.passBottom;
        int deepest = s.tiered(z) && !bottomPass ? z - 1 : z;
        for (int level = from; level <= deepest; level++) {
            for (RunView run : s.tree.level(level).runs()) {
                for (ComponentView c : run.components()) {
                    if (bottomPass && c.creationOrder() > state.passStartOrder) {
                        continue; // the pass's own output
                    }
                    int a = slice(starts, c.minKey());
                    int b = slice(starts, c.maxKey());
                    bySlice.get(a).add(c);
                    reach[a] = Math.max(reach[a], b);
                    fresh[a] |= level < z || bottomPass;
                }
            }
        }
        List<Group> groups = new ArrayList<>();
        int i = 0;
        while (i < slices) {
            int end = reach[i];
            List<ComponentView> members = new ArrayList<>();
            boolean hasNew = false;
            for (int j = i; j <= end; j++) {
                end = Math.max(end, reach[j]);
                members.addAll(bySlice.get(j));
                hasNew |= fresh[j];
            }
            if (!members.isEmpty()) {
                long bytes = 0;
                for (ComponentView c : members) {
                    bytes += c.sizeBytes();
                }
                groups.add(new Group(starts[i], members, bytes, hasNew));
            }
            i = end + 1;
        }
        return groups;
    }

    /** The slice holding {@code key}: the last i with starts[i] <= key (starts[0] is minus infinity). */
    private static int slice(byte[][] starts, byte[] key) {
        int lo = 0;
        int hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (Arrays.compareUnsigned(starts[mid], key) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static MergeTask rewrite(String kind, List<ComponentId> inputs, Placement placement, OutputSpec output,
                                     String reason) {
        return MergeTask.rewrite(inputs, placement, output, reason).withKind(kind);
    }

    private static List<ComponentId> ids(List<ComponentView> cs) {
        return cs.stream().map(ComponentView::id).toList();
    }

    /** One partition: the files of levels X..z in a run of slices; {@code from} is null for the first slice. */
    private record Group(byte[] from, List<ComponentView> members, long bytes, boolean hasNewData) {
    }

    /** Sizes, L, X and capacities of one view. */
    private final class Shape {
        final TreeView tree;
        final int largest;
        final int x;
        private final long[] levelBytes;

        Shape(TreeView tree) {
            this.tree = tree;
            int deepest = 1;
            levelBytes = new long[tree.levels().size() + 2];
            for (LevelView l : tree.levels()) {
                levelBytes[l.index()] = l.sizeBytes();
                if (l.index() >= 1 && l.componentCount() > 0) {
                    deepest = l.index();
                }
            }
            largest = deepest;
            x = Math.max(1, largest - config.xOffset());
            if (state.capacityLevel == 0) {
                // C_1 = T·α·B at the start (not in the paper; FAMILIES.md §1.2).
                long memtable = memtableBytes(tree);
                if (memtable > 0) {
                    state.capacityLevel = 1;
                    state.capacityBytes = (long) config.sizeRatio() * config.l0CompactionTrigger() * memtable;
                }
            }
        }

        /**
         * B, the memtable size: the store's setting ({@link StoreSettings#memtableBytes()}); for a
         * view that carries none (made by hand), the largest flush seen or level-0 table.
         */
        private long memtableBytes(TreeView tree) {
            if (tree.settings().knowsMemtableBytes()) {
                return tree.settings().memtableBytes();
            }
            long memtable = state.memtableBytes;
            for (ComponentView c : tree.level(0).runs().stream().flatMap(r -> r.components().stream()).toList()) {
                memtable = Math.max(memtable, c.sizeBytes());
            }
            return memtable;
        }

        long bytes(int level) {
            return level < levelBytes.length ? levelBytes[level] : 0;
        }

        /** C_i: the stored capacity of L scaled to the level L is now; below L, N_L / T^(L−i) (DCA). */
        long capacity(int level) {
            if (state.capacityLevel == 0) {
                return Long.MAX_VALUE; // nothing flushed yet: no size known
            }
            if (level >= largest) {
                return scale(state.capacityBytes, largest - state.capacityLevel);
            }
            long basis = state.passActive ? state.passLargestBytes : bytes(largest);
            if (basis == 0) {
                basis = scale(state.capacityBytes, largest - state.capacityLevel);
            }
            return Math.max(1, scale(basis, level - largest));
        }

        private long scale(long v, int powers) {
            double r = v * Math.pow(config.sizeRatio(), powers);
            return r >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, (long) r);
        }

        List<ComponentView> run(int level) {
            List<RunView> runs = tree.level(level).runs();
            return runs.isEmpty() ? List.of() : runs.get(runs.size() - 1).components();
        }

        List<ComponentId> inputs(int from, int to) {
            List<ComponentId> ids = new ArrayList<>();
            for (int l = from; l <= to; l++) {
                for (RunView r : tree.level(l).runs()) {
                    ids.addAll(ids(r.components()));
                }
            }
            return ids;
        }

        boolean anyBusy(List<ComponentView> cs) {
            for (ComponentView c : cs) {
                if (c.busy()) {
                    return true;
                }
            }
            return false;
        }

        boolean busyBetween(int from, int to) {
            for (int l = from; l <= to; l++) {
                for (RunView r : tree.level(l).runs()) {
                    if (r.busy()) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** Whether levels {@code from..to} hold no component (true when the range is empty). */
        boolean emptyBetween(int from, int to) {
            for (int l = from; l <= to; l++) {
                if (tree.level(l).componentCount() > 0) {
                    return false;
                }
            }
            return true;
        }

        boolean tiered(int level) {
            return config.tiered(level, largest);
        }

        /**
         * The partitions of the key space, one per file of the oldest level-L run: entry i is
         * the first key of its i-th file, entry 0 null (minus infinity); at least one entry.
         */
        byte[][] sliceTable() {
            List<ComponentView> bottom = run(largest);
            byte[][] starts = new byte[Math.max(1, bottom.size())][];
            for (int i = 1; i < starts.length; i++) {
                starts[i] = bottom.get(i).minKey();
            }
            return starts;
        }

        /** Where partitions start: the first keys of the oldest level-L run's files but the first. */
        List<byte[]> sliceStarts() {
            byte[][] starts = sliceTable();
            return Arrays.asList(starts).subList(1, starts.length);
        }

        long maxCreationOrder() {
            long max = 0;
            for (ComponentView c : tree.components()) {
                max = Math.max(max, c.creationOrder());
            }
            return max;
        }

        /** Whether {@code level} holds a component created before the pass began. */
        boolean holdsOlderThanPass(int level) {
            for (RunView r : tree.level(level).runs()) {
                for (ComponentView c : r.components()) {
                    if (c.creationOrder() <= state.passStartOrder) {
                        return true;
                    }
                }
            }
            return false;
        }

        /**
         * Where a pass into a new run at {@code level} writes: the newest run there once it
         * holds a component the pass created (only the pass writes to X..L while it runs), else
         * a new newest run.
         */
        Placement passOutput(int level) {
            List<RunView> runs = tree.level(level).runs();
            if (!runs.isEmpty()) {
                for (ComponentView c : runs.get(0).components()) {
                    if (c.creationOrder() > state.passStartOrder) {
                        return Placement.intoRunOf(level, c.id());
                    }
                }
            }
            return Placement.newRun(level);
        }

        /**
         * Whether a running merge writes into a level below 0: one out of level 0 into an
         * empty X holds no component of X..L, yet its output is cut at level L's files.
         */
        boolean writingBelowLevel0() {
            for (RunningMerge m : tree.runningMerges()) {
                if (m.targetLevel() >= 1 && m.mode() != MergeMode.MOVE) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Whether a full preemptive merge is running: a rewrite into a level in 1..X−1, or into
         * X = L (Full Merge). Partitioned merges write below X, dividing merges into X &lt; L,
         * and a level added or removed is a move.
         */
        boolean fullPreemptiveRunning() {
            for (RunningMerge m : tree.runningMerges()) {
                int target = m.targetLevel();
                if (m.mode() != MergeMode.MOVE && target >= 1 && (target < x || (target == x && x >= largest))) {
                    return true;
                }
            }
            return false;
        }

        boolean busyFrom(int from) {
            return busyBetween(from, tree.levels().size());
        }
    }
}
