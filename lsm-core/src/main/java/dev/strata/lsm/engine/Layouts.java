package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Pure functions that turn a version's layout into the next one — removing merge inputs,
 * placing new components — and the check every new layout must pass: runs are sorted and
 * disjoint, and for overlapping components the one in the newer position holds only newer
 * sequence numbers (the stability invariant).
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
     * Checks the stability invariant and run disjointness of a layout.
     *
     * @throws PolicyError describing the first violation
     */
    static void checkStable(List<List<Run>> levels) {
        List<Component> ordered = new ArrayList<>();
        List<Long> runIds = new ArrayList<>();
        for (int l = 0; l < levels.size(); l++) {
            for (Run r : levels.get(l)) {
                Component prev = null;
                for (Component c : r.components()) {
                    if (prev != null && Arrays.compareUnsigned(prev.meta().maxKey(), c.meta().minKey()) >= 0) {
                        throw new PolicyError("run " + r.id() + " in level " + l + " would hold overlapping components "
                                + prev + " and " + c);
                    }
                    prev = c;
                    ordered.add(c);
                    runIds.add(r.id());
                }
            }
        }
        for (int i = 0; i < ordered.size(); i++) {
            Component newer = ordered.get(i);
            for (int j = i + 1; j < ordered.size(); j++) {
                Component older = ordered.get(j);
                if (!runIds.get(i).equals(runIds.get(j)) && newer.overlaps(older)
                        && newer.meta().minSeqno() <= older.meta().maxSeqno()) {
                    throw new PolicyError("component " + newer + " (seqno " + newer.meta().minSeqno() + ".."
                            + newer.meta().maxSeqno() + ") would sit above overlapping older-positioned " + older
                            + " (seqno " + older.meta().minSeqno() + ".." + older.meta().maxSeqno()
                            + "), breaking the stability invariant");
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
