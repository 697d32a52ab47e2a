package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.version.VersionEdit.Kind;
import dev.strata.lsm.version.VersionEdit.LevelChange;
import dev.strata.lsm.version.VersionEdit.Position;
import dev.strata.lsm.version.VersionEdit.RunInsert;
import dev.strata.lsm.version.VersionEdit.RunLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a manifest says once its edits up to some point are applied: the metadata of the
 * components described and not removed (with the offset of the record that described
 * each), and the layout. Replaying records of any kind ({@link Kind}) goes through
 * {@link #apply}; a delta whose references do not fit the state is rejected with a message
 * naming the inconsistency. Mutable, single-threaded.
 */
final class ManifestState {
    /** A run as the state holds it: its components in key order. */
    private static final class MutableRun {
        final long id;
        final int level;
        final List<ComponentId> components = new ArrayList<>();

        MutableRun(long id, int level) {
            this.id = id;
            this.level = level;
        }
    }

    private final Map<ComponentId, ComponentMeta> metas = new HashMap<>();
    private final Map<ComponentId, Long> describedAt = new HashMap<>();
    private final List<List<MutableRun>> levels = new ArrayList<>();
    /** Per level, its runs by id (kept with {@link #levels}, so a delta costs what it changes). */
    private final List<Map<Long, MutableRun>> runsById = new ArrayList<>();
    /** The run of each placed component. */
    private final Map<ComponentId, MutableRun> placedIn = new HashMap<>();

    /** Thrown by {@link #apply} for an edit that does not fit the state. */
    static final class InconsistentEdit extends Exception {
        InconsistentEdit(String message) {
            super(message);
        }
    }

    /** The state of {@code version}, as if a snapshot of it had been replayed. */
    static ManifestState of(Version version) {
        ManifestState s = new ManifestState();
        for (Component c : version.components()) {
            s.metas.put(c.id(), c.meta());
        }
        s.setLayout(VersionEdit.layoutOf(version));
        return s;
    }

    /**
     * Applies one edit, recorded at {@code offset}.
     *
     * @throws InconsistentEdit if a delta removes, moves or drops what the state does not hold
     */
    void apply(VersionEdit e, long offset) throws InconsistentEdit {
        if (e.kind() == Kind.SNAPSHOT) {
            metas.clear();
            describedAt.clear();
        }
        for (ComponentId id : e.removed()) {
            if (metas.remove(id) == null && e.kind() == Kind.DELTA) {
                throw new InconsistentEdit("removes component " + id + ", which is not live");
            }
            describedAt.remove(id);
        }
        for (ComponentMeta m : e.added()) {
            metas.put(m.id(), m);
            describedAt.put(m.id(), offset);
        }
        if (e.kind() == Kind.DELTA) {
            applyDelta(e);
        } else {
            setLayout(e.layout());
        }
    }

    private void applyDelta(VersionEdit e) throws InconsistentEdit {
        for (ComponentId id : e.removed()) {
            MutableRun r = placedIn.remove(id);
            if (r == null) {
                throw new InconsistentEdit("removes component " + id + ", which is in no run");
            }
            r.components.remove(id);
        }
        for (Position p : e.placed()) {
            MutableRun r = placedIn.remove(p.id());
            if (r != null) {
                r.components.remove(p.id());
            }
        }
        for (LevelChange c : e.levelChanges()) {
            changeLevel(c);
        }
        for (Position p : e.placed()) {
            ComponentMeta m = metas.get(p.id());
            if (m == null) {
                throw new InconsistentEdit("places component " + p.id() + " without describing it");
            }
            MutableRun r = p.level() < runsById.size() ? runsById.get(p.level()).get(p.runId()) : null;
            if (r == null) {
                throw new InconsistentEdit("places component " + p.id() + " into run " + p.runId() + " of level "
                        + p.level() + ", which does not exist");
            }
            insertInKeyOrder(r, m);
            placedIn.put(p.id(), r);
        }
        while (!levels.isEmpty() && levels.get(levels.size() - 1).isEmpty()) {
            levels.remove(levels.size() - 1);
            runsById.remove(runsById.size() - 1);
        }
    }

    private void changeLevel(LevelChange c) throws InconsistentEdit {
        while (levels.size() <= c.level()) {
            levels.add(new ArrayList<>());
            runsById.add(new HashMap<>());
        }
        List<MutableRun> runs = levels.get(c.level());
        Map<Long, MutableRun> byId = runsById.get(c.level());
        if (c.order() != null) {
            Map<Long, MutableRun> before = new HashMap<>(byId);
            List<MutableRun> next = new ArrayList<>();
            byId.clear();
            for (long id : c.order()) {
                MutableRun r = before.remove(id);
                r = r != null ? r : new MutableRun(id, c.level());
                if (byId.put(id, r) != null) {
                    throw new InconsistentEdit("names run " + id + " twice in the order of level " + c.level());
                }
                next.add(r);
            }
            for (MutableRun gone : before.values()) {
                requireEmpty(gone);
            }
            runs.clear();
            runs.addAll(next);
            return;
        }
        Set<MutableRun> dropped = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (long id : c.dropped()) {
            MutableRun r = byId.remove(id);
            if (r == null) {
                throw new InconsistentEdit("drops run " + id + " of level " + c.level() + ", which does not exist");
            }
            requireEmpty(r);
            dropped.add(r);
        }
        if (!dropped.isEmpty()) {
            runs.removeIf(dropped::contains);
        }
        for (RunInsert i : c.inserted()) {
            if (i.index() > runs.size()) {
                throw new InconsistentEdit("inserts run " + i.runId() + " at index " + i.index() + " of level "
                        + c.level() + ", which has " + runs.size() + " runs");
            }
            MutableRun r = new MutableRun(i.runId(), c.level());
            if (byId.putIfAbsent(i.runId(), r) != null) {
                throw new InconsistentEdit("inserts run " + i.runId() + " into level " + c.level()
                        + ", which already holds it");
            }
            runs.add(i.index(), r);
        }
    }

    private static void requireEmpty(MutableRun r) throws InconsistentEdit {
        if (!r.components.isEmpty()) {
            throw new InconsistentEdit("drops run " + r.id + " of level " + r.level + ", which still holds "
                    + r.components);
        }
    }

    private void insertInKeyOrder(MutableRun r, ComponentMeta m) {
        int lo = 0;
        int hi = r.components.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareKeys(metas.get(r.components.get(mid)), m) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        r.components.add(lo, m.id());
    }

    private static int compareKeys(ComponentMeta a, ComponentMeta b) {
        int c = a == null ? -1 : Arrays.compareUnsigned(a.minKey(), b.minKey());
        return c != 0 ? c : Arrays.compareUnsigned(a.maxKey(), b.maxKey());
    }

    private void setLayout(List<List<RunLayout>> layout) {
        levels.clear();
        runsById.clear();
        placedIn.clear();
        for (int l = 0; l < layout.size(); l++) {
            List<MutableRun> runs = new ArrayList<>();
            Map<Long, MutableRun> byId = new HashMap<>();
            runsById.add(byId);
            for (RunLayout rl : layout.get(l)) {
                MutableRun r = new MutableRun(rl.runId(), l);
                byId.put(rl.runId(), r);
                r.components.addAll(rl.components());
                rl.components().forEach(id -> placedIn.put(id, r));
                runs.add(r);
            }
            levels.add(runs);
        }
    }

    /** The layout: levels of runs (newest first) of component ids (key order). */
    List<List<RunLayout>> layout() {
        List<List<RunLayout>> out = new ArrayList<>(levels.size());
        for (List<MutableRun> level : levels) {
            List<RunLayout> runs = new ArrayList<>(level.size());
            for (MutableRun r : level) {
                runs.add(new RunLayout(r.id, r.components));
            }
            out.add(runs);
        }
        return out;
    }

    /** Metadata of a described, not removed component, or null. */
    ComponentMeta meta(ComponentId id) {
        return metas.get(id);
    }

    /** Offset of the record that described {@code id}, or null. */
    Long describedAt(ComponentId id) {
        return describedAt.get(id);
    }

    /**
     * The delta from {@code base} to {@code next} (counters and state taken from
     * {@code counters}), or, when the change cannot be expressed as one (a run whose order
     * is not key order, say), a {@link Kind#LAYOUT} edit. Checked by replaying it on the
     * state of {@code base}: what a recovery would rebuild is exactly {@code next}.
     */
    static VersionEdit delta(Version base, Version next, VersionEdit counters) {
        if (base.levels().equals(next.levels())) {
            // Same runs of the same components (Component has identity equality): only counters change.
            return new VersionEdit(Kind.DELTA, counters.nextFileNumber(), counters.lastSequence(),
                    counters.logNumber(), counters.flushCounter(), counters.nextRunId(), counters.nextCreationOrder(),
                    counters.policyState(), List.of(), List.of(), List.of(), List.of(), List.of());
        }
        Set<ComponentId> removed = new HashSet<>();
        for (Component c : base.components()) {
            if (next.find(c.id()) == null) {
                removed.add(c.id());
            }
        }
        Map<ComponentId, long[]> basePositions = positions(base);
        List<ComponentMeta> added = new ArrayList<>();
        List<Position> placed = new ArrayList<>();
        List<List<Run>> nl = next.levels();
        for (int l = 0; l < nl.size(); l++) {
            for (Run r : nl.get(l)) {
                for (Component c : r.components()) {
                    long[] was = basePositions.get(c.id());
                    if (was == null) {
                        added.add(c.meta());
                        placed.add(new Position(c.id(), l, r.id()));
                    } else if (was[0] != l || was[1] != r.id()) {
                        placed.add(new Position(c.id(), l, r.id()));
                    }
                }
            }
        }
        List<LevelChange> changes = new ArrayList<>();
        int levelCount = Math.max(base.levels().size(), nl.size());
        for (int l = 0; l < levelCount; l++) {
            LevelChange c = levelChange(l, runIds(base, l), runIds(next, l));
            if (c != null) {
                changes.add(c);
            }
        }
        List<ComponentId> removedInOrder = base.components().stream().map(Component::id).filter(removed::contains)
                .toList();
        VersionEdit delta = new VersionEdit(Kind.DELTA, counters.nextFileNumber(), counters.lastSequence(),
                counters.logNumber(), counters.flushCounter(), counters.nextRunId(), counters.nextCreationOrder(),
                counters.policyState(), added, removedInOrder, List.of(), placed, changes);
        List<List<RunLayout>> expected = VersionEdit.layoutOf(next);
        try {
            ManifestState replayed = of(base);
            replayed.apply(delta, 0);
            if (replayed.layout().equals(expected)) {
                return delta;
            }
        } catch (InconsistentEdit e) {
            // Not expressible as a delta: fall through to a full layout.
        }
        return delta.asLayout(expected);
    }

    private static Map<ComponentId, long[]> positions(Version v) {
        Map<ComponentId, long[]> pos = new HashMap<>();
        List<List<Run>> levels = v.levels();
        for (int l = 0; l < levels.size(); l++) {
            for (Run r : levels.get(l)) {
                for (Component c : r.components()) {
                    pos.put(c.id(), new long[] {l, r.id()});
                }
            }
        }
        return pos;
    }

    private static List<Long> runIds(Version v, int level) {
        return level < v.levels().size() ? v.levels().get(level).stream().map(Run::id).toList() : List.of();
    }

    /** How the run order of a level changes from {@code before} to {@code after}, or null if it does not. */
    static LevelChange levelChange(int level, List<Long> before, List<Long> after) {
        if (before.equals(after)) {
            return null;
        }
        Set<Long> afterSet = new HashSet<>(after);
        Set<Long> beforeSet = new HashSet<>(before);
        List<Long> dropped = before.stream().filter(id -> !afterSet.contains(id)).toList();
        List<Long> kept = before.stream().filter(afterSet::contains).toList();
        List<Long> keptInAfter = after.stream().filter(beforeSet::contains).toList();
        if (!kept.equals(keptInAfter)) {
            return new LevelChange(level, List.of(), List.of(), after);
        }
        List<RunInsert> inserted = new ArrayList<>();
        for (int i = 0; i < after.size(); i++) {
            if (!beforeSet.contains(after.get(i))) {
                inserted.add(new RunInsert(i, after.get(i)));
            }
        }
        return new LevelChange(level, dropped, inserted, null);
    }
}
