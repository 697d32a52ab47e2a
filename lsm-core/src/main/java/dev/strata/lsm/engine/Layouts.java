package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.layout.LayoutModel;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;

import java.util.ArrayList;
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
     * The id of the run an {@code INTO_RUN_OF} placement names in {@code v}, or -1 (another
     * kind, or the anchor is not in its level).
     */
    static long runOf(Version v, Placement p) {
        if (p.kind() == Placement.Kind.INTO_RUN_OF && p.level() < v.levels().size()) {
            for (Run r : v.levels().get(p.level())) {
                for (Component c : r.components()) {
                    if (c.id().equals(p.anchor())) {
                        return r.id();
                    }
                }
            }
        }
        return -1;
    }

    /**
     * {@code p} as it applies to {@code base}, for a merge accepted when the anchor's run was
     * {@code runId}: the anchor may since have been consumed by another merge, which does not
     * move the run. Then the placement names another component of that run; if the run is
     * gone and its level empty, a new run there; else {@code p} unchanged (which
     * {@link #apply} refuses).
     */
    static Placement resolve(Version base, Placement p, long runId) {
        if (p.kind() != Placement.Kind.INTO_RUN_OF || runId < 0) {
            return p;
        }
        if (p.level() >= base.levels().size()) {
            return Placement.newRun(p.level());
        }
        List<Run> runs = base.levels().get(p.level());
        for (Run r : runs) {
            for (Component c : r.components()) {
                if (c.id().equals(p.anchor())) {
                    return p;
                }
            }
        }
        for (Run r : runs) {
            if (r.id() == runId && !r.components().isEmpty()) {
                return Placement.intoRunOf(p.level(), r.components().get(0).id());
            }
        }
        return runs.isEmpty() ? Placement.newRun(p.level()) : p;
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
