package dev.strata.lsm.policy.layout;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared layout model, in the style of Pebble's text tests: a tree written as text
 * ({@code L0: [f1 a-c @5-6] | L1: [f2 a-d @1-2, f3 e-h @3-4]}, runs newest first, a run's
 * components in brackets), a change, and the tree it must become or the error it must
 * raise.
 */
class LayoutModelTest {
    private final Map<String, ComponentView> byName = new HashMap<>();
    private final AtomicLong runIds = new AtomicLong(100);

    /** {@code f7 b-d @3-4}: name, key range (inclusive), sequence range. */
    private ComponentView c(String spec) {
        String[] p = spec.trim().split("\\s+");
        long n = Long.parseLong(p[0].substring(1));
        String[] keys = p[1].split("-");
        String[] seqs = p[2].substring(1).split("-");
        ComponentView v = ComponentView.builder(new ComponentId(n, 0)).sizeBytes(1).entries(1, 0)
                .keyRange(keys[0].getBytes(StandardCharsets.US_ASCII), keys[1].getBytes(StandardCharsets.US_ASCII))
                .seqnos(Long.parseLong(seqs[0]), Long.parseLong(seqs[1])).build();
        byName.put(p[0], v);
        return v;
    }

    private List<List<LayoutModel.Run<ComponentView>>> tree(String text) {
        List<List<LayoutModel.Run<ComponentView>>> levels = new ArrayList<>();
        long runId = 1;
        for (String level : text.split("\\|")) {
            int number = Integer.parseInt(level.substring(level.indexOf('L') + 1, level.indexOf(':')));
            while (levels.size() < number) {
                levels.add(new ArrayList<>());
            }
            String runsText = level.substring(level.indexOf(':') + 1).trim();
            List<LayoutModel.Run<ComponentView>> runs = new ArrayList<>();
            for (String run : runsText.split("]")) {
                String body = run.replace("[", "").trim();
                if (body.isEmpty()) {
                    continue;
                }
                List<ComponentView> cs = new ArrayList<>();
                for (String spec : body.split(",")) {
                    cs.add(c(spec));
                }
                runs.add(new LayoutModel.Run<>(runId++, cs));
            }
            levels.add(runs);
        }
        return levels;
    }

    private static String describe(List<List<LayoutModel.Run<ComponentView>>> levels) {
        List<String> out = new ArrayList<>();
        for (int l = 0; l < levels.size(); l++) {
            out.add("L" + l + ": " + levels.get(l).stream().map(r -> r.components().stream()
                    .map(v -> "f" + v.id().fileNumber()).collect(Collectors.joining(", ", "[", "]")))
                    .collect(Collectors.joining(" ")));
        }
        return String.join(" | ", out);
    }

    private ComponentView f(String name) {
        return byName.get(name);
    }

    private List<List<LayoutModel.Run<ComponentView>>> change(List<List<LayoutModel.Run<ComponentView>>> base,
                                                              List<String> removed, List<ComponentView> added,
                                                              Placement placement) {
        LayoutModel<ComponentView> m = LayoutModel.VIEWS;
        List<ComponentView> inputs = removed.stream().map(this::f).toList();
        var result = m.apply(base, inputs.stream().map(ComponentView::id).collect(Collectors.toSet()), added,
                placement, runIds::incrementAndGet);
        m.checkChange(base, inputs, added, result);
        return result;
    }

    @Test
    void aFlushBecomesTheNewestRunOfLevelZero() {
        var base = tree("L0: [f1 a-c @3-4] | L1: [f2 a-d @1-2, f3 e-h @1-2]");
        var result = change(base, List.of(), List.of(c("f9 b-z @5-6")), Placement.newRun(0));
        assertEquals("L0: [f9] [f1] | L1: [f2, f3]", describe(result));
    }

    @Test
    void aLevelZeroMergeIntoLevelOneTakesTheOverlappedFilesAndKeepsTheRest() {
        var base = tree("L0: [f1 b-f @5-6] | L1: [f2 a-c @1-2, f3 d-g @1-2, f4 h-k @1-2]");
        var result = change(base, List.of("f1", "f2", "f3"), List.of(c("f10 a-d @1-6"), c("f11 e-g @1-6")),
                Placement.intoRunOf(1, f("f4").id()));
        assertEquals("L0:  | L1: [f10, f11, f4]", describe(result)); // an emptied level stays, as in the engine
    }

    @Test
    void aMoveToAnEmptyLevelAddsTheLevel() {
        var base = tree("L0: [f1 a-c @5-6] | L1: [f2 d-g @1-2]");
        var result = change(base, List.of("f1"), List.of(f("f1")), Placement.newRun(2));
        assertEquals("L0:  | L1: [f2] | L2: [f1]", describe(result));
    }

    @Test
    void anOldestRunGoesBelowTheOthersOfItsLevel() {
        var base = tree("L0: [f1 a-c @5-6] [f2 a-c @3-4]");
        var result = change(base, List.of(), List.of(c("f9 x-z @1-2")), Placement.newOldestRun(0));
        assertEquals("L0: [f1] [f2] [f9]", describe(result));
    }

    @Test
    void overlappingComponentsInOneRunAreRefused() {
        var base = tree("L1: [f2 a-c @1-2, f3 e-h @1-2]");
        LayoutModel.LayoutException e = assertThrows(LayoutModel.LayoutException.class,
                () -> change(base, List.of(), List.of(c("f9 b-f @3-4")), Placement.intoRunOf(1, f("f2").id())));
        assertTrue(e.getMessage().contains("overlapping components"), e.getMessage());
    }

    @Test
    void olderDataAboveNewerDataIsRefused() {
        var base = tree("L0: [f1 a-c @5-6] | L1: [f2 a-d @1-2]");
        // f2 merged alone into level 0, above nothing: but placed as the newest run, above f1's newer data.
        LayoutModel.LayoutException e = assertThrows(LayoutModel.LayoutException.class,
                () -> change(base, List.of("f2"), List.of(c("f9 a-d @1-2")), Placement.newRun(0)));
        assertTrue(e.getMessage().contains("stability invariant"), e.getMessage());
    }

    @Test
    void interleavedSequenceRangesAreAcceptedWhenEveryInputLayOnTheSameSide() {
        // Two level-0 runs whose union spans the deeper f3, whose seqnos interleave with theirs
        // (a store reopened with another policy): every input overlapping f3 was above it.
        var base = tree("L0: [f1 a-b @10-11] [f2 y-z @2-3] | L1: [f3 c-x @5-6]");
        var result = change(base, List.of("f1", "f2"), List.of(c("f9 a-z @2-11")), Placement.newRun(0));
        assertEquals("L0: [f9] | L1: [f3]", describe(result));
    }

    @Test
    void anAnchorOutsideItsLevelIsAnError() {
        var base = tree("L0: [f1 a-c @5-6] | L1: [f2 a-d @1-2]");
        assertThrows(LayoutModel.LayoutException.class, () -> LayoutModel.VIEWS.apply(base, Set.of(),
                List.of(c("f9 a-b @7-7")), Placement.intoRunOf(0, f("f2").id()), runIds::incrementAndGet));
    }

    @Test
    void bottommostLooksOnlyBelowThePlacementTarget() {
        var base = tree("L0: [f1 a-c @5-6] | L1: [f2 a-d @3-4] | L2: [f3 m-p @1-2]");
        LayoutModel<ComponentView> m = LayoutModel.VIEWS;
        assertTrue(m.isBottommost(base, Set.of(f("f1").id(), f("f2").id()), Placement.intoRunOf(1, f("f2").id()),
                bytes("a"), bytes("d")));
        assertFalse(m.isBottommost(base, Set.of(f("f1").id()), Placement.intoRunOf(1, f("f2").id()),
                bytes("a"), bytes("c")));
        assertFalse(m.isBottommost(base, Set.of(f("f1").id(), f("f2").id()), Placement.intoRunOf(1, f("f2").id()),
                bytes("a"), bytes("n")));
    }

    @Test
    void overlapSearchFindsExactlyWhatALinearScanFinds() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        for (int trial = 0; trial < 500; trial++) {
            List<ComponentView> cs = new ArrayList<>();
            int at = 0;
            for (int i = 0; i < 1 + rnd.nextInt(40); i++) {
                int lo = at + rnd.nextInt(3);
                int hi = lo + rnd.nextInt(4);
                cs.add(view(i, lo, hi));
                at = hi + 1;
            }
            LayoutModel.Run<ComponentView> run = new LayoutModel.Run<>(1, cs);
            int from = rnd.nextInt(at + 2);
            int to = from + rnd.nextInt(10);
            List<ComponentView> linear = cs.stream().filter(v -> v.overlaps(key(from), key(to))).toList();
            assertEquals(linear, LayoutModel.VIEWS.overlapping(run, key(from), key(to)), "seed " + seed);
        }
    }

    @Test
    void aCheckReadsTheKeysOfWhatItOverlapsNotOfEveryComponent() {
        // 10,000 files in level 1; a level-0 file over three of them merges into them.
        List<ComponentView> l1 = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            l1.add(view(i + 10, 10 * i, 10 * i + 5));
        }
        ComponentView l0 = ComponentView.builder(new ComponentId(1, 0)).sizeBytes(1).entries(1, 0)
                .keyRange(key(50_000), key(50_025)).seqnos(100, 200).build();
        List<List<LayoutModel.Run<ComponentView>>> base = List.of(List.of(new LayoutModel.Run<>(1, List.of(l0))),
                List.of(new LayoutModel.Run<>(2, l1)));
        AtomicLong keyReads = new AtomicLong();
        LayoutModel<ComponentView> counting = new LayoutModel<>(new LayoutModel.Traits<>() {
            @Override
            public ComponentId id(ComponentView c) {
                return c.id();
            }

            @Override
            public byte[] minKey(ComponentView c) {
                keyReads.incrementAndGet();
                return c.minKey();
            }

            @Override
            public byte[] maxKey(ComponentView c) {
                keyReads.incrementAndGet();
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
        List<ComponentView> inputs = List.of(l0, l1.get(5000), l1.get(5001), l1.get(5002));
        ComponentView out = ComponentView.builder(new ComponentId(99_999, 0)).sizeBytes(1).entries(1, 0)
                .keyRange(key(50_000), key(50_025)).seqnos(1, 200).build();
        var result = counting.apply(base, inputs.stream().map(ComponentView::id).collect(Collectors.toSet()),
                List.of(out), Placement.intoRunOf(1, l1.get(0).id()), runIds::incrementAndGet);
        keyReads.set(0);
        assertDoesNotThrow(() -> counting.checkChange(base, inputs, List.of(out), result));
        // Binary searches and the few overlapping neighbours: a few dozen key reads, not 10,000s.
        assertTrue(keyReads.get() < 200, "key reads: " + keyReads.get());
    }

    private static ComponentView view(long n, int lo, int hi) {
        return ComponentView.builder(new ComponentId(n, 0)).sizeBytes(1).entries(1, 0).keyRange(key(lo), key(hi))
                .seqnos(1, 2).build();
    }

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 8).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
