package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link Layouts#resolve}: an {@code INTO_RUN_OF} placement accepted on one version, applied
 * to the version current at install, after other merges consumed its anchor or emptied its
 * run. Run ids are given explicitly, as the version set keeps them across edits.
 */
class LayoutsResolveTest {
    private static long nextFile = 1;

    private static Component comp(String min, String max, long minSeq, long maxSeq) {
        return new Component(new ComponentMeta(new ComponentId(nextFile++, 0), 4096, 1, 0, 1,
                min.getBytes(StandardCharsets.US_ASCII), max.getBytes(StandardCharsets.US_ASCII), minSeq, maxSeq, 0),
                null);
    }

    private static Run run(long id, Component... cs) {
        return new Run(id, List.of(cs));
    }

    private static Version version(List<List<Run>> levels) {
        return new Version(levels, 0, new byte[0]);
    }

    /** Run ids of each level of {@code levels}. */
    private static List<List<Long>> runIds(List<List<Run>> levels) {
        List<List<Long>> out = new ArrayList<>();
        for (List<Run> l : levels) {
            out.add(l.stream().map(Run::id).toList());
        }
        return out;
    }

    private static List<List<Run>> install(Version base, List<Component> inputs, Component out, Placement p,
                                           Layouts.RunAt at) {
        Set<ComponentId> removed = new java.util.HashSet<>();
        inputs.forEach(c -> removed.add(c.id()));
        List<List<Run>> levels = Layouts.apply(base, removed, List.of(out), Layouts.resolve(base, p, at), () -> 100);
        Layouts.checkChange(base, inputs, List.of(out), levels);
        return levels;
    }

    @Test
    void anAnchorInItsLevelIsKept() {
        Component x = comp("a", "b", 1, 10);
        Version v = version(List.of(List.of(run(1, x))));
        Placement p = Placement.intoRunOf(0, x.id());
        Layouts.RunAt at = Layouts.runAt(v, p);
        assertEquals(1, at.runId());
        assertEquals(p, Layouts.resolve(v, p, at).placement());
        assertNull(Layouts.resolve(v, p, at).behind());
        assertEquals(Layouts.RunAt.NONE, Layouts.runAt(v, Placement.newRun(0)));
        assertEquals(Layouts.RunAt.NONE, Layouts.runAt(v, Placement.intoRunOf(1, x.id())));
    }

    @Test
    void aConsumedAnchorIsReplacedByAnotherComponentOfItsRun() {
        Component x = comp("a", "b", 1, 10);
        Component y = comp("c", "d", 1, 10);
        Component r = comp("e", "f", 20, 30);
        Version accepted = version(List.of(List.of(run(2, r), run(1, x, y))));
        Placement p = Placement.intoRunOf(0, x.id());
        Layouts.RunAt at = Layouts.runAt(accepted, p);
        Version now = version(List.of(List.of(run(2, r), run(1, y)), List.of(run(3, x)))); // x moved down
        assertEquals(Placement.intoRunOf(0, y.id()), Layouts.resolve(now, p, at).placement());
        Component out = comp("e", "f", 20, 30);
        List<List<Run>> levels = install(now, List.of(r), out, p, at);
        assertEquals(List.of(List.of(1L), List.of(3L)), runIds(levels));
        assertEquals(List.of(y, out), levels.get(0).get(0).components());
    }

    @Test
    void anAnchorMovedToAnotherRunOfItsLevelDoesNotTakeTheOutputWithIt() {
        Component x = comp("a", "b", 1, 10);
        Component y = comp("c", "d", 1, 10);
        Component r = comp("e", "f", 20, 30);
        Version accepted = version(List.of(List.of(run(2, r), run(1, x, y))));
        Placement p = Placement.intoRunOf(0, x.id());
        Layouts.RunAt at = Layouts.runAt(accepted, p);
        Version now = version(List.of(List.of(run(2, r), run(3, x), run(1, y))));
        assertEquals(Placement.intoRunOf(0, y.id()), Layouts.resolve(now, p, at).placement());
    }

    /**
     * Issue 29: level 0 holds [r, m] with m one table x; the consolidation of r into m's run is
     * accepted, x moves down, a flush f lands in level 0. The output goes where m was: behind
     * f (and r, its input), not refused because the anchor left the level.
     */
    @Test
    void anEmptiedRunIsReplacedByANewRunWhereItWas() {
        Component x = comp("a", "b", 1, 10);
        Component r = comp("c", "d", 20, 30);
        Component f = comp("c", "e", 40, 50);
        Version accepted = version(List.of(List.of(run(2, r), run(1, x))));
        Placement p = Placement.intoRunOf(0, x.id());
        Layouts.RunAt at = Layouts.runAt(accepted, p);
        assertEquals(new Layouts.RunAt(1, Set.of(2L), Set.of()), at);
        Version now = version(List.of(List.of(run(4, f), run(2, r)), List.of(run(3, x))));
        Layouts.Target target = Layouts.resolve(now, p, at);
        assertEquals(Placement.newRun(0), target.placement());
        assertEquals(Set.of(4L, 2L), target.behind());
        Component out = comp("c", "d", 20, 30);
        List<List<Run>> levels = install(now, List.of(r), out, p, at);
        assertEquals(List.of(List.of(4L, 100L), List.of(3L)), runIds(levels));
    }

    @Test
    void anEmptiedRunWithNoNewerRunLeftGoesInFrontOfTheOlderOnes() {
        Component n = comp("x", "y", 60, 70);
        Component x = comp("a", "b", 30, 40);
        Component o = comp("a", "z", 1, 10);
        Component in = comp("c", "d", 20, 25); // the input, in another level (its run is not in the way)
        Component f = comp("p", "q", 80, 90);
        Version accepted = version(List.of(List.of(run(5, n), run(1, x), run(2, o)), List.of(run(3, in))));
        Placement p = Placement.intoRunOf(0, x.id());
        Layouts.RunAt at = Layouts.runAt(accepted, p);
        // n merged away elsewhere, x moved down, a flush f arrived.
        Version now = version(List.of(List.of(run(6, f), run(2, o)), List.of(run(3, in), run(7, x))));
        Layouts.Target target = Layouts.resolve(now, p, at);
        assertEquals(Set.of(6L), target.behind());
        List<List<Run>> levels = Layouts.apply(now, Set.of(in.id()), List.of(comp("c", "d", 20, 25)), target,
                () -> 100);
        assertEquals(List.of(List.of(6L, 100L, 2L), List.of(7L)), runIds(levels));
    }

    @Test
    void anEmptiedRunWhoseLevelHoldsOnlyNewRunsGoesBehindThem() {
        Component x = comp("a", "b", 1, 10);
        Component in = comp("c", "d", 20, 30);
        Component f = comp("e", "f", 40, 50);
        Version accepted = version(List.of(List.of(), List.of(run(1, x)), List.of(run(2, in))));
        Placement p = Placement.intoRunOf(1, x.id());
        Layouts.RunAt at = Layouts.runAt(accepted, p);
        Version empty = version(List.of(List.of(), List.of(), List.of(run(2, in), run(3, x))));
        assertEquals(Placement.newRun(1), Layouts.resolve(empty, p, at).placement());
        assertEquals(List.of(List.of(), List.of(100L), List.of(3L)),
                runIds(install(empty, List.of(in), comp("c", "d", 20, 30), p, at)));
        Version withNew = version(List.of(List.of(), List.of(run(4, f)), List.of(run(2, in), run(3, x))));
        assertEquals(List.of(List.of(), List.of(4L, 100L), List.of(3L)),
                runIds(install(withNew, List.of(in), comp("c", "d", 20, 30), p, at)));
    }

    @Test
    void aMergeThatLeavesNothingAddsNoRun() {
        Component x = comp("a", "b", 1, 10);
        Component r = comp("c", "d", 20, 30);
        Version accepted = version(List.of(List.of(run(2, r), run(1, x))));
        Placement p = Placement.intoRunOf(0, x.id());
        Layouts.RunAt at = Layouts.runAt(accepted, p);
        Version now = version(List.of(List.of(run(2, r)), List.of(run(3, x))));
        List<List<Run>> levels = Layouts.apply(now, Set.of(r.id()), List.of(), Layouts.resolve(now, p, at), () -> 100);
        assertEquals(List.of(List.of(), List.of(3L)), runIds(levels));
    }
}
