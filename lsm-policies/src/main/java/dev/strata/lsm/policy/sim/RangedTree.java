package dev.strata.lsm.policy.sim;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A key-range-aware simulated tree: levels of runs (newest first) of components sorted by
 * key, each with a key range, a density of entries over it and a sequence range. Changes are
 * applied with the engine's placement semantics and checked: inputs exist, a run's
 * components never overlap, and wherever two components overlap the one positioned above
 * holds only newer data. Not thread safe.
 */
final class RangedTree {
    /** Keys are positions in [0, 1) scaled to 62 bits, written big-endian in 8 bytes. */
    private static final double SCALE = 0x1p62;

    /** One simulated component. */
    static final class Part {
        final ComponentId id;
        final KeyDensity density;
        final long minSeq;
        final long maxSeq;
        final ComponentView view;

        Part(ComponentId id, KeyDensity density, long minSeq, long maxSeq, long creation, long nowMillis,
             double entryBytes) {
            this.id = id;
            this.density = density;
            this.minSeq = minSeq;
            this.maxSeq = maxSeq;
            long entries = Math.max(1, Math.round(density.entries()));
            long bytes = Math.max(1, Math.round(density.entries() * entryBytes));
            this.view = ComponentView.builder(id).sizeBytes(bytes).entries(entries, 0).userBytes(bytes)
                    .keyRange(key(density.min()), maxKey(density.max())).seqnos(minSeq, maxSeq)
                    .creation(creation, nowMillis).build();
        }

        double min() {
            return density.min();
        }

        double max() {
            return density.max();
        }

        long bytes() {
            return view.sizeBytes();
        }

        boolean overlaps(Part o) {
            return min() < o.max() && o.min() < max();
        }
    }

    private final List<List<List<Part>>> levels = new ArrayList<>();
    private final Map<ComponentId, Part> byId = new HashMap<>();

    static byte[] key(double x) {
        long v = (long) (Math.min(1.0, Math.max(0.0, x)) * SCALE);
        return toBytes(v);
    }

    /** The largest key below position {@code x}. */
    static byte[] maxKey(double x) {
        long v = (long) (Math.min(1.0, Math.max(0.0, x)) * SCALE);
        return toBytes(Math.max(0, v - 1));
    }

    private static byte[] toBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    /** The position of a key (inverse of {@link #key}; shorter keys are padded with zeros). */
    static double position(byte[] key) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (i < key.length ? key[i] & 0xff : 0);
        }
        return v / SCALE;
    }

    Part find(ComponentId id) {
        return byId.get(id);
    }

    int componentCount() {
        return byId.size();
    }

    long totalBytes() {
        long sum = 0;
        for (Part p : byId.values()) {
            sum += p.bytes();
        }
        return sum;
    }

    int levelOf(ComponentId id) {
        for (int l = 0; l < levels.size(); l++) {
            for (List<Part> run : levels.get(l)) {
                for (Part p : run) {
                    if (p.id.equals(id)) {
                        return l;
                    }
                }
            }
        }
        return -1;
    }

    /** The files of {@code level}, sorted by smallest key (several runs' files interleave). */
    List<Part> levelFiles(int level) {
        List<Part> out = new ArrayList<>();
        if (level < levels.size()) {
            for (List<Part> run : levels.get(level)) {
                out.addAll(run);
            }
        }
        out.sort((a, b) -> Double.compare(a.min(), b.min()));
        return out;
    }

    TreeView view(long flushCounter, byte[] policyState, long nowMillis) {
        List<LevelView> lv = new ArrayList<>(levels.size());
        for (int i = 0; i < levels.size(); i++) {
            List<RunView> runs = new ArrayList<>(levels.get(i).size());
            for (List<Part> r : levels.get(i)) {
                List<ComponentView> cs = new ArrayList<>(r.size());
                for (Part p : r) {
                    cs.add(p.view);
                }
                runs.add(new RunView(cs));
            }
            lv.add(new LevelView(i, runs));
        }
        TreeView.RangeEstimator estimator = (c, from, to) -> {
            Part p = byId.get(c.id());
            if (p == null) {
                return 0;
            }
            double lo = from == null ? 0 : position(from);
            double hi = to == null ? 1 : position(to);
            double all = p.density.entries();
            return all <= 0 ? 0 : Math.round(p.bytes() * p.density.entriesIn(lo, hi) / all);
        };
        return new TreeView(lv, flushCounter, policyState, estimator, List.of(), nowMillis);
    }

    /**
     * Removes {@code removed} and places {@code added} as {@code placement} says.
     *
     * @throws IllegalStateException if an input or the anchor is missing, or the result breaks
     *     a run's order or the stability invariant (the tree is then unchanged)
     */
    void apply(List<ComponentId> removed, List<Part> added, Placement placement) {
        for (ComponentId id : removed) {
            if (!byId.containsKey(id)) {
                throw new IllegalStateException("merge input " + id + " does not exist");
            }
        }
        List<List<List<Part>>> before = copy();
        Map<ComponentId, Part> beforeIds = new HashMap<>(byId);
        try {
            Map<ComponentId, int[]> positionsBefore = positions();
            List<Part> inputs = new ArrayList<>(removed.size());
            for (ComponentId id : removed) {
                inputs.add(byId.get(id));
            }
            applyUnchecked(removed, added, placement);
            Map<ComponentId, int[]> positionsAfter = positions();
            Set<ComponentId> addedIds = new HashSet<>();
            for (Part p : added) {
                addedIds.add(p.id);
            }
            for (Part p : added) {
                checkStable(p, addedIds, inputs, positionsBefore, positionsAfter);
            }
        } catch (IllegalStateException e) {
            levels.clear();
            levels.addAll(before);
            byId.clear();
            byId.putAll(beforeIds);
            throw e;
        }
    }

    private void applyUnchecked(List<ComponentId> removed, List<Part> added, Placement placement) {
        int targetLevel = placement.level();
        List<Part> targetRun = null;
        if (placement.kind() == Placement.Kind.INTO_RUN_OF) {
            if (targetLevel < levels.size()) {
                for (List<Part> run : levels.get(targetLevel)) {
                    for (Part p : run) {
                        if (p.id.equals(placement.anchor())) {
                            targetRun = run;
                        }
                    }
                }
            }
            if (targetRun == null) {
                throw new IllegalStateException("placement anchor " + placement.anchor() + " is not in level "
                        + targetLevel);
            }
        }
        Set<ComponentId> gone = new HashSet<>(removed);
        for (List<List<Part>> level : levels) {
            for (List<Part> run : level) {
                run.removeIf(p -> gone.contains(p.id));
            }
        }
        removed.forEach(byId::remove);
        if (!added.isEmpty()) {
            while (levels.size() <= targetLevel) {
                levels.add(new ArrayList<>());
            }
            List<List<Part>> level = levels.get(targetLevel);
            switch (placement.kind()) {
                case NEW_RUN_NEWEST -> level.add(0, new ArrayList<>(added));
                case NEW_RUN_OLDEST -> level.add(new ArrayList<>(added));
                case INTO_RUN_OF -> targetRun.addAll(added);
            }
            List<Part> run = placement.kind() == Placement.Kind.INTO_RUN_OF ? targetRun
                    : placement.kind() == Placement.Kind.NEW_RUN_NEWEST ? level.get(0) : level.get(level.size() - 1);
            run.sort((a, b) -> Double.compare(a.min(), b.min()));
            for (int i = 1; i < run.size(); i++) {
                if (run.get(i - 1).max() > run.get(i).min()) {
                    throw new IllegalStateException("a run at level " + targetLevel + " would hold overlapping "
                            + "components " + run.get(i - 1).view + " and " + run.get(i).view);
                }
            }
            for (Part p : added) {
                byId.put(p.id, p);
            }
        }
        for (List<List<Part>> level : levels) {
            level.removeIf(List::isEmpty);
        }
    }

    /** Position of every component: {level, index of its run in the level}; smaller is newer. */
    private Map<ComponentId, int[]> positions() {
        Map<ComponentId, int[]> pos = new HashMap<>();
        for (int l = 0; l < levels.size(); l++) {
            for (int r = 0; r < levels.get(l).size(); r++) {
                for (Part p : levels.get(l).get(r)) {
                    pos.put(p.id, new int[] {l, r});
                }
            }
        }
        return pos;
    }

    private static int compare(int[] a, int[] b) {
        int byLevel = Integer.compare(a[0], b[0]);
        return byLevel != 0 ? byLevel : Integer.compare(a[1], b[1]);
    }

    /**
     * The engine's stability rule ({@code Layouts.checkChange}): for every component {@code o}
     * overlapping the new {@code p}, either their sequence ranges are ordered as their
     * positions are, or every input overlapping both lay on the same side of {@code o} as
     * {@code p} now does (merging keeps the per-key order the inputs had).
     */
    private void checkStable(Part p, Set<ComponentId> addedIds, List<Part> inputs, Map<ComponentId, int[]> before,
                             Map<ComponentId, int[]> after) {
        int[] pp = after.get(p.id);
        for (int l = 0; l < levels.size(); l++) {
            for (int r = 0; r < levels.get(l).size(); r++) {
                for (Part o : overlapping(levels.get(l).get(r), p)) {
                    if (addedIds.contains(o.id)) {
                        continue;
                    }
                    boolean pNewer = compare(pp, after.get(o.id)) < 0;
                    boolean seqnosOrdered = pNewer ? p.minSeq > o.maxSeq : p.maxSeq < o.minSeq;
                    if (seqnosOrdered || inputsOnSide(before, inputs, p, o, pNewer)) {
                        continue;
                    }
                    throw new IllegalStateException("stability broken: " + p.view + " (flushes " + p.minSeq + ".."
                            + p.maxSeq + ") at level " + pp[0] + " would sit " + (pNewer ? "above" : "below")
                            + " overlapping " + o.view + " (flushes " + o.minSeq + ".." + o.maxSeq + ") at level "
                            + l + " while inputs overlapping both lay on the other side of it");
                }
            }
        }
    }

    private static boolean inputsOnSide(Map<ComponentId, int[]> before, List<Part> inputs, Part p, Part o,
                                        boolean newer) {
        int[] po = before.get(o.id);
        if (po == null) {
            return false;
        }
        for (Part i : inputs) {
            if (!i.overlaps(o) || !i.overlaps(p)) {
                continue;
            }
            if ((compare(before.get(i.id), po) < 0) != newer) {
                return false;
            }
        }
        return true;
    }

    /** The components of a key-sorted run that overlap {@code p}. */
    private static List<Part> overlapping(List<Part> run, Part p) {
        int lo = 0;
        int hi = run.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (run.get(mid).max() <= p.min()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        List<Part> out = new ArrayList<>();
        for (int i = lo; i < run.size() && run.get(i).min() < p.max(); i++) {
            out.add(run.get(i));
        }
        return out;
    }

    private List<List<List<Part>>> copy() {
        List<List<List<Part>>> out = new ArrayList<>();
        for (List<List<Part>> level : levels) {
            List<List<Part>> l = new ArrayList<>();
            for (List<Part> run : level) {
                l.add(new ArrayList<>(run));
            }
            out.add(l);
        }
        return out;
    }

    /** Files per level and level sizes, e.g. {@code L0 2 files 4.0 MB | L1 8 files 20.1 MB}. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        for (int l = 0; l < levels.size(); l++) {
            long bytes = 0;
            int files = 0;
            for (List<Part> run : levels.get(l)) {
                for (Part p : run) {
                    bytes += p.bytes();
                    files++;
                }
            }
            sb.append(l == 0 ? "" : " | ").append('L').append(l).append(' ').append(levels.get(l).size())
                    .append(levels.get(l).size() == 1 ? " run " : " runs ").append(files).append(" files ")
                    .append(String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1e6));
        }
        return sb.toString();
    }
}
