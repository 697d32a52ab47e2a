package dev.strata.lsm.policy.layout;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.Placement;

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
 * The one layout model that the engine and the policy simulators share: pure functions that
 * turn a layout — levels of runs, newest run first, each run's components sorted by key and
 * disjoint — into the next one (merge inputs taken out, new components placed as a
 * {@link Placement} says), and the check every change must pass: runs stay sorted and
 * disjoint, and for every key a component in a newer position holds only newer versions of
 * it (the stability invariant, see {@link #checkChange}).
 *
 * <p>Generic in the component type, so the engine applies it to its tables and a simulator
 * to its simulated components; {@link #VIEWS} applies it to {@link ComponentView}s, so a
 * policy can predict the layout a task would produce. Immutable and thread safe. Cost of a
 * check: for each added component, a binary search in each run for the components it
 * overlaps — it scales with the key ranges touched, not with all pairs of components.
 *
 * @param <C> the component type
 */
public final class LayoutModel<C> {

    /** How the model reads a component. */
    public interface Traits<C> {
        /**
         * The identity of {@code c}.
         *
         * @param c a component
         * @return its identity
         */
        ComponentId id(C c);

        /**
         * Smallest key, inclusive.
         *
         * @param c a component
         * @return its smallest user key
         */
        byte[] minKey(C c);

        /**
         * Largest key, inclusive.
         *
         * @param c a component
         * @return its largest user key
         */
        byte[] maxKey(C c);

        /**
         * The smallest sequence number {@code c} holds.
         *
         * @param c a component
         * @return its smallest sequence number
         */
        long minSeqno(C c);

        /**
         * The largest sequence number {@code c} holds.
         *
         * @param c a component
         * @return its largest sequence number
         */
        long maxSeqno(C c);
    }

    /** A sorted run: an id that stays with the run while it exists, and its components in key order. */
    public record Run<C>(long id, List<C> components) {
        /**
         * Creates a run.
         *
         * @param id         an id that stays with the run while it exists
         * @param components its components, in key order
         */
        public Run {
            components = List.copyOf(components);
        }
    }

    /** A change that breaks the layout's rules, or names a component or anchor that is not there. */
    public static final class LayoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /**
         * A layout rule broken, as {@code message} says.
         *
         * @param message the rule broken, naming the components
         */
        public LayoutException(String message) {
            super(message);
        }
    }

    /** The model over {@link ComponentView}s. */
    public static final LayoutModel<ComponentView> VIEWS = new LayoutModel<>(new Traits<>() {
        @Override
        public ComponentId id(ComponentView c) {
            return c.id();
        }

        @Override
        public byte[] minKey(ComponentView c) {
            return c.minKey();
        }

        @Override
        public byte[] maxKey(ComponentView c) {
            return c.maxKey();
        }

        @Override
        public long minSeqno(ComponentView c) {
            return c.minSeqno();
        }

        @Override
        public long maxSeqno(ComponentView c) {
            return c.maxSeqno();
        }
    });

    /** The position of a component that no layout holds yet (a flushed table): newer than every position. */
    private static final long NEWEST = -1;

    private final Traits<C> traits;
    private final Comparator<C> byMinKey;

    /**
     * A model reading components through {@code traits}.
     *
     * @param traits how to read a component's identity, key range and sequence numbers
     */
    public LayoutModel(Traits<C> traits) {
        this.traits = traits;
        this.byMinKey = (a, b) -> Arrays.compareUnsigned(traits.minKey(a), traits.minKey(b));
    }

    /**
     * Whether the key ranges of {@code a} and {@code b} share a key.
     *
     * @param a a component
     * @param b another component
     * @return true when their key ranges intersect
     */
    public boolean overlaps(C a, C b) {
        return overlaps(a, traits.minKey(b), traits.maxKey(b));
    }

    /**
     * Whether {@code c} holds keys in [{@code min}, {@code max}] (both inclusive).
     *
     * @param c a component
     * @param min the smallest key of the range, inclusive
     * @param max the largest key of the range, inclusive
     * @return true when the component's key range intersects the range
     */
    public boolean overlaps(C c, byte[] min, byte[] max) {
        return Arrays.compareUnsigned(traits.minKey(c), max) <= 0 && Arrays.compareUnsigned(min, traits.maxKey(c)) <= 0;
    }

    /**
     * The components of {@code run} overlapping [{@code min}, {@code max}], by binary search.
     *
     * @param run a run, its components sorted by key and disjoint
     * @param min the smallest key of the range, inclusive
     * @param max the largest key of the range, inclusive
     * @return the overlapping components, in key order (empty when none)
     */
    public List<C> overlapping(Run<C> run, byte[] min, byte[] max) {
        List<C> cs = run.components();
        int lo = 0;
        int hi = cs.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(traits.maxKey(cs.get(mid)), min) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        List<C> out = new ArrayList<>();
        for (int i = lo; i < cs.size() && Arrays.compareUnsigned(traits.minKey(cs.get(i)), max) <= 0; i++) {
            out.add(cs.get(i));
        }
        return out;
    }

    /**
     * The layout of {@code base} with {@code removed} taken out and {@code added} placed at
     * {@code placement}; runs left empty are dropped. Not checked: see {@link #checkChange}.
     *
     * @param base the layout before the change: levels of runs, newest run first
     * @param removed the components taken out
     * @param added the components placed
     * @param placement where {@code added} go
     * @param newRunId gives the id of a run the placement creates
     * @return the new layout (a new list; {@code base} is unchanged)
     * @throws LayoutException if the placement's anchor is not in its level
     */
    public List<List<Run<C>>> apply(List<List<Run<C>>> base, Set<ComponentId> removed, List<C> added,
                                    Placement placement, LongSupplier newRunId) {
        List<List<Run<C>>> levels = new ArrayList<>(base.size() + 1);
        for (List<Run<C>> l : base) {
            levels.add(new ArrayList<>(l));
        }
        long targetRun = placement.kind() == Placement.Kind.INTO_RUN_OF
                ? runOf(levels, placement.anchor(), placement.level()) : -1;
        if (!removed.isEmpty()) {
            for (List<Run<C>> level : levels) {
                for (int i = 0; i < level.size(); i++) {
                    Run<C> r = level.get(i);
                    if (r.components().stream().anyMatch(c -> removed.contains(traits.id(c)))) {
                        level.set(i, new Run<>(r.id(),
                                r.components().stream().filter(c -> !removed.contains(traits.id(c))).toList()));
                    }
                }
            }
        }
        if (!added.isEmpty()) {
            while (levels.size() <= placement.level()) {
                levels.add(new ArrayList<>());
            }
            List<Run<C>> level = levels.get(placement.level());
            List<C> sorted = new ArrayList<>(added);
            sorted.sort(byMinKey);
            switch (placement.kind()) {
                case NEW_RUN_NEWEST -> level.add(0, new Run<>(newRunId.getAsLong(), sorted));
                case NEW_RUN_OLDEST -> level.add(new Run<>(newRunId.getAsLong(), sorted));
                case INTO_RUN_OF -> {
                    for (int i = 0; i < level.size(); i++) {
                        if (level.get(i).id() == targetRun) {
                            List<C> merged = new ArrayList<>(level.get(i).components());
                            merged.addAll(sorted);
                            merged.sort(byMinKey);
                            level.set(i, new Run<>(targetRun, merged));
                        }
                    }
                }
            }
        }
        for (List<Run<C>> level : levels) {
            level.removeIf(r -> r.components().isEmpty());
        }
        return levels;
    }

    private long runOf(List<List<Run<C>>> levels, ComponentId anchor, int level) {
        if (level < levels.size()) {
            for (Run<C> r : levels.get(level)) {
                for (C c : r.components()) {
                    if (traits.id(c).equals(anchor)) {
                        return r.id();
                    }
                }
            }
        }
        throw new LayoutException("placement anchor " + anchor + " is not in level " + level);
    }

    /**
     * Checks the layout {@code result} that a change made from {@code base}: {@code inputs}
     * (merged, moved, or a flushed component that no layout holds yet) were taken out and
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
     *       {@code c} share no key. A component no layout holds yet (a flush) counts as
     *       newer than everything.</li>
     * </ul>
     * The second rule accepts what a comparison of ranges alone cannot: a merge of level-0
     * runs whose union spans a deeper table with interleaved sequence numbers (a store
     * reopened with another policy), or a tiered output merged down under newer level-0
     * tables.
     *
     * @param base the layout before the change
     * @param inputs the components the change took out
     * @param added the components the change placed
     * @param result the layout after the change
     * @throws LayoutException describing the first violation
     */
    public void checkChange(List<List<Run<C>>> base, List<C> inputs, List<C> added, List<List<Run<C>>> result) {
        if (added.isEmpty()) {
            return; // taking components out of sorted, disjoint, stable runs keeps them so
        }
        Map<ComponentId, Long> before = positions(base);
        Map<ComponentId, Long> after = positions(result);
        Set<ComponentId> addedIds = new HashSet<>();
        for (C o : added) {
            addedIds.add(traits.id(o));
        }
        for (C o : added) {
            Long position = after.get(traits.id(o));
            if (position == null) {
                throw new LayoutException("added component " + traits.id(o) + " is not in the result");
            }
            checkNeighbours(result, position, o);
        }
        for (C o : added) {
            long po = after.get(traits.id(o));
            for (List<Run<C>> level : result) {
                for (Run<C> r : level) {
                    for (C c : overlapping(r, traits.minKey(o), traits.maxKey(o))) {
                        if (addedIds.contains(traits.id(c))) {
                            continue;
                        }
                        boolean oNewer = po < after.get(traits.id(c));
                        boolean seqnosOrdered = oNewer ? traits.minSeqno(o) > traits.maxSeqno(c)
                                : traits.maxSeqno(o) < traits.minSeqno(c);
                        if (seqnosOrdered || inputsOnSide(before, inputs, o, c, oNewer)) {
                            continue;
                        }
                        throw new LayoutException("component " + describe(o) + " would sit " + (oNewer ? "above" : "below")
                                + " overlapping " + describe(c) + " while inputs overlapping both lay on the other side"
                                + " of it, breaking the stability invariant");
                    }
                }
            }
        }
    }

    private String describe(C c) {
        return traits.id(c) + " (seqno " + traits.minSeqno(c) + ".." + traits.maxSeqno(c) + ")";
    }

    /** Whether every input overlapping both {@code o} and {@code c} was newer ({@code newer}) or older than {@code c}. */
    private boolean inputsOnSide(Map<ComponentId, Long> before, List<C> inputs, C o, C c, boolean newer) {
        Long pc = before.get(traits.id(c));
        if (pc == null) {
            return false; // not in the base layout: nothing is known about it
        }
        for (C i : inputs) {
            if (!overlaps(i, c) || !overlaps(i, o)) {
                continue;
            }
            long pi = before.getOrDefault(traits.id(i), NEWEST);
            if ((pi < pc) != newer) {
                return false;
            }
        }
        return true;
    }

    /** Position of every component, smaller is newer: level in the high 32 bits, index of its run in the low. */
    private Map<ComponentId, Long> positions(List<List<Run<C>>> levels) {
        Map<ComponentId, Long> pos = new HashMap<>();
        for (int l = 0; l < levels.size(); l++) {
            List<Run<C>> runs = levels.get(l);
            for (int r = 0; r < runs.size(); r++) {
                long p = ((long) l << 32) | r;
                for (C c : runs.get(r).components()) {
                    pos.put(traits.id(c), p);
                }
            }
        }
        return pos;
    }

    /**
     * Checks that added component {@code o}, at {@code position} in {@code result}, does not
     * overlap its neighbours in its run. Runs are sorted by smallest key and were disjoint
     * before, so new adjacencies — the only places a run can lose disjointness — all involve
     * an added component.
     */
    private void checkNeighbours(List<List<Run<C>>> result, long position, C o) {
        int level = (int) (position >>> 32);
        Run<C> run = result.get(level).get((int) position);
        List<C> cs = run.components();
        byte[] min = traits.minKey(o);
        int lo = 0;
        int hi = cs.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(traits.minKey(cs.get(mid)), min) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int at = lo;
        while (at < cs.size() && !traits.id(cs.get(at)).equals(traits.id(o))) {
            at++; // several components with the same smallest key overlap: found below
        }
        if (at == cs.size()) {
            throw new LayoutException("run " + run.id() + " in level " + level + " is not sorted by key at "
                    + traits.id(o));
        }
        if (at > 0 && Arrays.compareUnsigned(traits.maxKey(cs.get(at - 1)), min) >= 0) {
            throw new LayoutException("run " + run.id() + " in level " + level + " would hold overlapping components "
                    + traits.id(cs.get(at - 1)) + " and " + traits.id(o));
        }
        if (at + 1 < cs.size() && Arrays.compareUnsigned(traits.maxKey(o), traits.minKey(cs.get(at + 1))) >= 0) {
            throw new LayoutException("run " + run.id() + " in level " + level + " would hold overlapping components "
                    + traits.id(o) + " and " + traits.id(cs.get(at + 1)));
        }
    }

    /**
     * Whether nothing positioned below the placement target overlaps [minKey, maxKey]
     * (ignoring {@code inputs}): then a merge into that target may drop tombstones.
     *
     * @param levels the layout: levels of runs, newest run first
     * @param inputs the components to ignore (the merge's inputs)
     * @param placement the merge's placement
     * @param minKey the smallest key of the output, inclusive
     * @param maxKey the largest key of the output, inclusive
     * @return true when no component outside {@code inputs} positioned below the target overlaps
     *     the range
     */
    public boolean isBottommost(List<List<Run<C>>> levels, Set<ComponentId> inputs, Placement placement, byte[] minKey,
                                byte[] maxKey) {
        for (int l = placement.level(); l < levels.size(); l++) {
            List<Run<C>> runs = levels.get(l);
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
                for (C c : overlapping(runs.get(r), minKey, maxKey)) {
                    if (!inputs.contains(traits.id(c))) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
}
