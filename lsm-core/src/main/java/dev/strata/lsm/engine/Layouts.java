package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.layout.LayoutModel;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The shared {@link LayoutModel} applied to a version's tables: the next layout after a
 * change, the check every change must pass, and whether a merge target is the bottom for a
 * key range. The rules themselves live in the model, which the policy simulators use too.
 */
final class Layouts {
    private Layouts() {
    }

    /** The model over the engine's tables. */
    static final LayoutModel<Component> MODEL = new LayoutModel<>(new LayoutModel.Traits<>() {
        @Override
        public ComponentId id(Component c) {
            return c.id();
        }

        @Override
        public byte[] minKey(Component c) {
            return c.meta().minKey();
        }

        @Override
        public byte[] maxKey(Component c) {
            return c.meta().maxKey();
        }

        @Override
        public long minSeqno(Component c) {
            return c.meta().minSeqno();
        }

        @Override
        public long maxSeqno(Component c) {
            return c.meta().maxSeqno();
        }
    });

    /** A policy produced a placement or task the engine cannot accept. */
    static final class PolicyError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PolicyError(String message) {
            super(message);
        }
    }

    /**
     * Where the run that an {@code INTO_RUN_OF} placement names was when its merge was
     * accepted: the run's id, and the ids of the other runs of its level then, newer and
     * older than it. {@link #NONE} for other placements (and flushes, which hold their anchor).
     */
    record RunAt(long runId, Set<Long> newer, Set<Long> older) {
        static final RunAt NONE = new RunAt(-1, Set.of(), Set.of());

        RunAt {
            newer = Set.copyOf(newer);
            older = Set.copyOf(older);
        }
    }

    /**
     * Where the run an {@code INTO_RUN_OF} placement names lies in {@code v}, or
     * {@link RunAt#NONE} (another kind, or the anchor is not in its level).
     */
    static RunAt runAt(Version v, Placement p) {
        if (p.kind() == Placement.Kind.INTO_RUN_OF && p.level() < v.levels().size()) {
            List<Run> runs = v.levels().get(p.level());
            for (int i = 0; i < runs.size(); i++) {
                for (Component c : runs.get(i).components()) {
                    if (c.id().equals(p.anchor())) {
                        return new RunAt(runs.get(i).id(), ids(runs.subList(0, i)),
                                ids(runs.subList(i + 1, runs.size())));
                    }
                }
            }
        }
        return RunAt.NONE;
    }

    private static Set<Long> ids(List<Run> runs) {
        Set<Long> out = new HashSet<>();
        for (Run r : runs) {
            out.add(r.id());
        }
        return out;
    }

    /**
     * Where a merge's output goes at install: {@code placement}, or — when {@code behind} is
     * not null — a new run of {@code placement}'s level right behind (older than) those of
     * its runs whose ids {@code behind} holds, in front of the others.
     */
    record Target(Placement placement, Set<Long> behind) {
        static Target of(Placement p) {
            return new Target(p, null);
        }
    }

    /**
     * {@code p} as it applies to {@code base}, for a merge accepted when the anchor's run was
     * {@code at}: the placement names that run, not the component. The anchor may since have
     * been consumed or moved by another merge, which does not move the run: then the output
     * goes into that run, named by another of its components. If other merges emptied the run
     * (merged or moved its last component away), the output becomes a new run where that run
     * was: behind the runs of the level that were newer than it and in front of those that
     * were older. Runs keep their order within a level, and those created since went in front
     * of all (new newest runs) or behind all (new oldest runs); only when none of the level's
     * runs of then is left can the two not be told apart, and the new run goes behind every
     * run (a level's new runs are mostly newest runs: flushes, merges from above). The layout
     * check at install decides whether the result is stable, as for any placement. So the
     * finished merge is installed, not thrown away (issue 29: a level-0 consolidation anchored
     * on the only table of the level's oldest run, which the saturation trigger moved down
     * while the consolidation ran).
     */
    static Target resolve(Version base, Placement p, RunAt at) {
        if (p.kind() != Placement.Kind.INTO_RUN_OF || at.runId() < 0) {
            return Target.of(p);
        }
        List<Run> runs = p.level() < base.levels().size() ? base.levels().get(p.level()) : List.of();
        for (Run r : runs) {
            if (r.id() == at.runId() && !r.components().isEmpty()) {
                for (Component c : r.components()) {
                    if (c.id().equals(p.anchor())) {
                        return Target.of(p);
                    }
                }
                return Target.of(Placement.intoRunOf(p.level(), r.components().get(0).id()));
            }
        }
        int lastNewer = -1;
        int firstOlder = -1;
        for (int i = 0; i < runs.size(); i++) {
            if (at.newer().contains(runs.get(i).id())) {
                lastNewer = i;
            } else if (firstOlder < 0 && at.older().contains(runs.get(i).id())) {
                firstOlder = i;
            }
        }
        int position = lastNewer >= 0 ? lastNewer + 1 : firstOlder >= 0 ? firstOlder : runs.size();
        return new Target(Placement.newRun(p.level()), ids(runs.subList(0, position)));
    }

    /**
     * The layout of {@code base} with {@code removed} taken out and {@code added} placed at
     * {@code target} (see {@link #resolve}; a plain placement as {@link LayoutModel#apply}).
     *
     * @throws PolicyError if the placement's anchor is not in its level
     */
    static List<List<Run>> apply(Version base, Set<ComponentId> removed, List<Component> added, Target target,
                                 LongSupplier newRunId) {
        if (target.behind() == null) {
            return apply(base, removed, added, target.placement(), newRunId);
        }
        long[] created = {Long.MIN_VALUE};
        List<List<Run>> levels = apply(base, removed, added, target.placement(), () -> {
            created[0] = newRunId.getAsLong();
            return created[0];
        });
        if (created[0] == Long.MIN_VALUE) {
            return levels; // nothing added
        }
        List<Run> level = levels.get(target.placement().level());
        Run run = level.remove(0); // a new newest run
        if (run.id() != created[0]) {
            throw new IllegalStateException("the new run " + created[0] + " is not the newest of its level: " + level);
        }
        int position = 0;
        for (int i = 0; i < level.size(); i++) {
            if (target.behind().contains(level.get(i).id())) {
                position = i + 1;
            }
        }
        level.add(position, run);
        return levels;
    }

    /**
     * The layout of {@code base} with {@code removed} taken out and {@code added} placed at
     * {@code placement} (see {@link LayoutModel#apply}).
     *
     * @throws PolicyError if the placement's anchor is not in its level
     */
    static List<List<Run>> apply(Version base, Set<ComponentId> removed, List<Component> added, Placement placement,
                                 LongSupplier newRunId) {
        try {
            return fromModel(MODEL.apply(toModel(base.levels()), removed, added, placement, newRunId));
        } catch (LayoutModel.LayoutException e) {
            throw new PolicyError(e.getMessage());
        }
    }

    /**
     * Checks the layout {@code result} that a change made from {@code base} (see
     * {@link LayoutModel#checkChange}).
     *
     * @throws PolicyError describing the first violation
     */
    static void checkChange(Version base, List<Component> inputs, List<Component> added, List<List<Run>> result) {
        try {
            MODEL.checkChange(toModel(base.levels()), inputs, added, toModel(result));
        } catch (LayoutModel.LayoutException e) {
            throw new PolicyError(e.getMessage());
        }
    }

    /**
     * Whether nothing positioned below the placement target overlaps [minKey, maxKey]
     * (ignoring {@code inputs}): then a merge into that target may drop tombstones.
     */
    static boolean isBottommost(Version v, Set<ComponentId> inputs, Placement placement, byte[] minKey, byte[] maxKey) {
        try {
            return MODEL.isBottommost(toModel(v.levels()), inputs, placement, minKey, maxKey);
        } catch (LayoutModel.LayoutException e) {
            throw new PolicyError(e.getMessage());
        }
    }

    private static List<List<LayoutModel.Run<Component>>> toModel(List<List<Run>> levels) {
        List<List<LayoutModel.Run<Component>>> out = new ArrayList<>(levels.size());
        for (List<Run> level : levels) {
            List<LayoutModel.Run<Component>> runs = new ArrayList<>(level.size());
            for (Run r : level) {
                runs.add(new LayoutModel.Run<>(r.id(), r.components()));
            }
            out.add(runs);
        }
        return out;
    }

    private static List<List<Run>> fromModel(List<List<LayoutModel.Run<Component>>> levels) {
        List<List<Run>> out = new ArrayList<>(levels.size());
        for (List<LayoutModel.Run<Component>> level : levels) {
            List<Run> runs = new ArrayList<>(level.size());
            for (LayoutModel.Run<Component> r : level) {
                runs.add(new Run(r.id(), r.components()));
            }
            out.add(runs);
        }
        return out;
    }
}
