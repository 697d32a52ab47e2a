package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Pure functions that turn a version's layout into the next one — removing merge inputs,
 * placing new components — and the check every change must pass: runs are sorted and
 * disjoint, and for every key a component in a newer position holds only newer versions of
 * it (the stability invariant; see {@link #checkChange}).
 */
final class Layouts {
    private Layouts() {
    }

    /** A policy produced a placement or task the engine cannot accept. */
    static final class PolicyError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PolicyError(String message) {
            super(message);
        }
    }

    /** Mutable working copy of a layout. */
    private static List<List<Run>> copy(Version v) {
        List<List<Run>> levels = new ArrayList<>();
        for (List<Run> l : v.levels()) {
            levels.add(new ArrayList<>(l));
        }
        return levels;
    }

    /**
     * The layout of {@code base} with {@code removed} taken out and {@code added} placed at
     * {@code placement}. Runs left empty are dropped.
     */
    static List<List<Run>> apply(Version base, Set<ComponentId> removed, List<Component> added, Placement placement,
                                 LongSupplier newRunId) {
        List<List<Run>> levels = copy(base);
        long targetRun = -1;
        if (placement.kind() == Placement.Kind.INTO_RUN_OF) {
            targetRun = runOf(levels, placement.anchor(), placement.level());
        }
        for (List<Run> level : levels) {
            for (int i = 0; i < level.size(); i++) {
                Run r = level.get(i);
                if (r.components().stream().anyMatch(c -> removed.contains(c.id()))) {
                    level.set(i, new Run(r.id(), r.components().stream().filter(c -> !removed.contains(c.id())).toList()));
                }
            }
        }
        if (!added.isEmpty()) {
            while (levels.size() <= placement.level()) {
                levels.add(new ArrayList<>());
            }
            List<Run> level = levels.get(placement.level());
            List<Component> sorted = new ArrayList<>(added);
            sorted.sort(Comparator.comparing(c -> c.meta().minKey(), Arrays::compareUnsigned));
            switch (placement.kind()) {
                case NEW_RUN_NEWEST -> level.add(0, new Run(newRunId.getAsLong(), sorted));
                case NEW_RUN_OLDEST -> level.add(new Run(newRunId.getAsLong(), sorted));
                case INTO_RUN_OF -> {
                    for (int i = 0; i < level.size(); i++) {
                        if (level.get(i).id() == targetRun) {
                            List<Component> merged = new ArrayList<>(level.get(i).components());
                            merged.addAll(sorted);
                            merged.sort(Comparator.comparing(c -> c.meta().minKey(), Arrays::compareUnsigned));
                            level.set(i, new Run(targetRun, merged));
                        }
                    }
                }
            }
        }
        for (List<Run> level : levels) {
            level.removeIf(r -> r.components().isEmpty());
        }
        return levels;
    }

    private static long runOf(List<List<Run>> levels, ComponentId anchor, int level) {
        if (level < levels.size()) {
            for (Run r : levels.get(level)) {
                for (Component c : r.components()) {
                    if (c.id().equals(anchor)) {
                        return r.id();
                    }
                }
            }
        }
        throw new PolicyError("placement anchor " + anchor + " is not in level " + level);
    }

    /**
     * Checks the layout {@code result} that a change made from {@code base}: {@code inputs}
     * (merged, moved, or a flushed table that no version holds yet) were taken out and
     * {@code added} placed. Runs must be sorted and disjoint, and the stability invariant
     * must hold — for every key, a component in a newer position holds only newer versions
     * of it than one in an older position. {@code base} satisfied it, so only pairs of an
     * added component {@code o} and an unchanged component {@code c} whose key ranges
     * overlap need checking; the pair is stable when either
     * <ul>
     *   <li>their sequence numbers are ordered as their positions ({@code o} above
     *       {@code c} holding only larger ones, or below holding only smaller ones), or</li>
     *   <li>every input whose key range overlaps both lay on the side of {@code c} where
     *       {@code o} now lies. A key of {@code o} inside {@code c}'s range came from such an
     *       input, whose versions of it were, by {@code base}'s stability, all newer (or all
     *       older) than {@code c}'s; merging keeps that. No such input: {@code o} and
     *       {@code c} share no key. A table no version holds yet (a flush) counts as newer
     *       than everything.</li>
     * </ul>
     * The second rule accepts what a comparison of ranges alone cannot: a merge of level-0
     * runs whose union spans a deeper table with interleaved sequence numbers (a store
     * reopened with another policy), or a tiered output merged down under newer level-0
     * tables. Cost: {@code added} times the components of {@code result}, not all pairs.
     *
     * @throws PolicyError describing the first violation
     */
    static void checkChange(Version base, List<Component> inputs, List<Component> added, List<List<Run>> result) {
        checkRunsDisjoint(result);
        Map<ComponentId, long[]> before = positions(base.levels());
        Map<ComponentId, long[]> after = positions(result);
        Set<ComponentId> addedIds = new HashSet<>();
        for (Component o : added) {
            addedIds.add(o.id());
        }
        for (Component o : added) {
            long[] po = after.get(o.id());
            for (List<Run> level : result) {
                for (Run r : level) {
                    for (Component c : r.components()) {
                        if (addedIds.contains(c.id()) || !o.overlaps(c)) {
                            continue;
                        }
                        boolean oNewer = compare(po, after.get(c.id())) < 0;
                        boolean seqnosOrdered = oNewer ? o.meta().minSeqno() > c.meta().maxSeqno()
                                : o.meta().maxSeqno() < c.meta().minSeqno();
                        if (seqnosOrdered || inputsOnSide(before, inputs, o, c, oNewer)) {
                            continue;
                        }
                        throw new PolicyError("component " + o + " (seqno " + o.meta().minSeqno() + ".."
                                + o.meta().maxSeqno() + ") would sit " + (oNewer ? "above" : "below") + " overlapping "
                                + c + " (seqno " + c.meta().minSeqno() + ".." + c.meta().maxSeqno()
                                + ") while inputs overlapping both lay on the other side of it, breaking the"
                                + " stability invariant");
                    }
                }
            }
        }
    }

    /** Whether every input overlapping both {@code o} and {@code c} was newer ({@code newer}) or older than {@code c}. */
    private static boolean inputsOnSide(Map<ComponentId, long[]> before, List<Component> inputs, Component o,
                                        Component c, boolean newer) {
        long[] pc = before.get(c.id());
        if (pc == null) {
            return false; // not in the base version: nothing is known about it
        }
        for (Component i : inputs) {
            if (!i.overlaps(c) || !i.overlaps(o)) {
                continue;
            }
            long[] pi = before.getOrDefault(i.id(), NEWEST);
            if ((compare(pi, pc) < 0) != newer) {
                return false;
            }
        }
        return true;
    }

    /** The position of a table that no version holds yet: newer than every position. */
    private static final long[] NEWEST = {-1, -1};

    /** Position of every component: {level, index of its run in the level}, smaller is newer. */
    private static Map<ComponentId, long[]> positions(List<List<Run>> levels) {
        Map<ComponentId, long[]> pos = new HashMap<>();
        for (int l = 0; l < levels.size(); l++) {
            List<Run> runs = levels.get(l);
            for (int r = 0; r < runs.size(); r++) {
                for (Component c : runs.get(r).components()) {
                    pos.put(c.id(), new long[] {l, r});
                }
            }
        }
        return pos;
    }

    private static int compare(long[] a, long[] b) {
        int byLevel = Long.compare(a[0], b[0]);
        return byLevel != 0 ? byLevel : Long.compare(a[1], b[1]);
    }

    private static void checkRunsDisjoint(List<List<Run>> levels) {
        for (int l = 0; l < levels.size(); l++) {
            for (Run r : levels.get(l)) {
                Component prev = null;
                for (Component c : r.components()) {
                    if (prev != null && Arrays.compareUnsigned(prev.meta().maxKey(), c.meta().minKey()) >= 0) {
                        throw new PolicyError("run " + r.id() + " in level " + l + " would hold overlapping components "
                                + prev + " and " + c);
                    }
                    prev = c;
                }
            }
        }
    }

    /**
     * Whether nothing positioned below the placement target overlaps [minKey, maxKey]
     * (ignoring {@code inputs}): then a merge into that target may drop tombstones.
     */
    static boolean isBottommost(Version v, Set<ComponentId> inputs, Placement placement, byte[] minKey, byte[] maxKey) {
        List<List<Run>> levels = v.levels();
        for (int l = placement.level(); l < levels.size(); l++) {
            List<Run> runs = levels.get(l);
            int from = 0;
            if (l == placement.level()) {
                from = switch (placement.kind()) {
                    case NEW_RUN_NEWEST -> 0;
                    case NEW_RUN_OLDEST -> runs.size();
                    case INTO_RUN_OF -> {
                        long target = runOf(levels, placement.anchor(), l);
                        int idx = 0;
                        while (idx < runs.size() && runs.get(idx).id() != target) {
                            idx++;
                        }
                        yield idx;
                    }
                };
            }
            for (int r = from; r < runs.size(); r++) {
                for (Component c : runs.get(r).components()) {
                    if (!inputs.contains(c.id()) && Arrays.compareUnsigned(c.meta().minKey(), maxKey) <= 0
                            && Arrays.compareUnsigned(minKey, c.meta().maxKey()) <= 0) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
}
