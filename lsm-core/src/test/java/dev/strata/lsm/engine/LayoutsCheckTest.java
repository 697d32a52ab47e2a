package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Layouts#checkChange}: the stability check by position. Scripted cases from the
 * torture findings, and a randomized comparison with the truth — every key's versions,
 * newest position first, in descending sequence order — in which the check may reject a
 * stable result (it sees ranges, not keys) but must never accept an unstable one.
 * Replay with {@code -Dstrata.test.seed=N}.
 */
class LayoutsCheckTest {
    private static long nextFile = 1;

    private static Component comp(String min, String max, long minSeq, long maxSeq) {
        return new Component(new ComponentMeta(new ComponentId(nextFile++, 0), 4096, 1, 0, 1,
                min.getBytes(StandardCharsets.US_ASCII), max.getBytes(StandardCharsets.US_ASCII), minSeq, maxSeq, 0),
                null);
    }

    private static Version version(List<List<List<Component>>> levels) {
        List<List<Run>> out = new ArrayList<>();
        long runId = 1;
        for (List<List<Component>> level : levels) {
            List<Run> runs = new ArrayList<>();
            for (List<Component> run : level) {
                runs.add(new Run(runId++, run));
            }
            out.add(runs);
        }
        return new Version(out, 0, new byte[0]);
    }

    private static Component mergeOf(List<Component> parts) {
        byte[] min = parts.stream().map(c -> c.meta().minKey()).min(Arrays::compareUnsigned).orElseThrow();
        byte[] max = parts.stream().map(c -> c.meta().maxKey()).max(Arrays::compareUnsigned).orElseThrow();
        long minSeq = parts.stream().mapToLong(c -> c.meta().minSeqno()).min().orElseThrow();
        long maxSeq = parts.stream().mapToLong(c -> c.meta().maxSeqno()).max().orElseThrow();
        return new Component(new ComponentMeta(new ComponentId(nextFile++, 0), 4096, 1, 0, 1, min, max, minSeq, maxSeq,
                0), null);
    }

    private static void check(Version base, List<Component> inputs, Component output, Placement p) {
        Set<ComponentId> removed = new HashSet<>();
        inputs.forEach(c -> removed.add(c.id()));
        Layouts.checkChange(base, inputs, List.of(output), Layouts.apply(base, removed, List.of(output), p, () -> 99));
    }

    /**
     * Torture, policy switch: a level-0 run of two disjoint tables (a leveled predecessor's
     * cut output) sits above an older table; a stack policy merges the run's left table with
     * the older one. The output's seqno range interleaves with the run's right table, which
     * it does not share a key with: by ranges it "overlaps"; by position it is stable.
     */
    @Test
    void aMergeBelowANewerDisjointNeighbourIsAccepted() {
        Component left = comp("a", "f", 50, 90);
        Component right = comp("g", "m", 60, 95);
        Component older = comp("a", "k", 1, 40);
        Version base = version(List.of(List.of(List.of(left, right), List.of(older))));
        // left + older into older's run: the output spans a..k, seqno 1..90; right (g..m, 60..95) stays above.
        assertDoesNotThrow(() -> check(base, List.of(left, older), mergeOf(List.of(left, older)),
                Placement.intoRunOf(0, older.id())));
    }

    /** A merge that would carry newer data below an older, overlapping table is refused. */
    @Test
    void aMergeThatBuriesNewerDataBelowOlderIsRefused() {
        Component newest = comp("a", "k", 80, 90);
        Component middle = comp("c", "e", 40, 60);
        Component oldest = comp("a", "k", 1, 30);
        Version base = version(List.of(List.of(List.of(newest), List.of(middle), List.of(oldest))));
        // newest + oldest into oldest's place, below middle: newest's versions of c..e would sit below middle's.
        assertThrows(Layouts.PolicyError.class, () -> check(base, List.of(newest, oldest),
                mergeOf(List.of(newest, oldest)), Placement.intoRunOf(0, oldest.id())));
        // Into newest's place, above middle, oldest's versions of c..e would rise above middle's: refused too.
        assertThrows(Layouts.PolicyError.class, () -> check(base, List.of(newest, oldest),
                mergeOf(List.of(newest, oldest)), Placement.intoRunOf(0, newest.id())));
        // Merging the contiguous pair newest + middle into newest's place is fine.
        assertDoesNotThrow(() -> check(base, List.of(newest, middle), mergeOf(List.of(newest, middle)),
                Placement.intoRunOf(0, newest.id())));
    }

    /** A flushed table (in no version yet) is newer than everything: it may not go below an overlapping table. */
    @Test
    void aFlushedTableBelowAnOverlappingTableIsRefused() {
        Component l0 = comp("a", "k", 10, 20);
        Version base = version(List.of(List.of(List.of(l0))));
        Component flushed = comp("b", "c", 21, 30);
        List<List<Run>> below = Layouts.apply(base, Set.of(), List.of(flushed), Placement.newRun(1), () -> 99);
        assertThrows(Layouts.PolicyError.class, () -> Layouts.checkChange(base, List.of(flushed), List.of(flushed),
                below));
        List<List<Run>> above = Layouts.apply(base, Set.of(), List.of(flushed), Placement.newRun(0), () -> 99);
        assertDoesNotThrow(() -> Layouts.checkChange(base, List.of(flushed), List.of(flushed), above));
    }

    /**
     * Random stable trees of single-level runs with real keys and versions; a random merge of
     * some components placed at a random input's position. Whenever the check accepts, the
     * per-key truth must hold in the result.
     */
    @Test
    void neverAcceptsAnUnstableResult() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        int accepted = 0;
        for (int trial = 0; trial < 3000; trial++) {
            // Build a stack of runs newest first; each run holds 1-3 disjoint tables of keys 0..29.
            int runs = 2 + rnd.nextInt(5);
            long seq = 1000;
            List<List<Component>> stack = new ArrayList<>();
            TreeMap<Long, int[]> keysOf = new TreeMap<>();
            List<List<int[]>> runKeys = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                List<Component> run = new ArrayList<>();
                int start = rnd.nextInt(10);
                while (start < 30 && run.size() < 3) {
                    int end = Math.min(29, start + rnd.nextInt(10));
                    int[] keys = rnd.ints(1 + rnd.nextInt(4), start, end + 1).distinct().sorted().toArray();
                    long hi = seq;
                    long lo = seq - keys.length - rnd.nextInt(50); // older runs get smaller seqnos, ranges may interleave
                    seq = lo - 1 - rnd.nextInt(3) + (rnd.nextInt(4) == 0 ? 30 : 0);
                    Component c = comp(key(keys[0]), key(keys[keys.length - 1]), lo, hi);
                    keysOf.put(c.id().fileNumber(), keys);
                    run.add(c);
                    start = end + 1 + rnd.nextInt(3);
                }
                stack.add(run);
            }
            List<List<List<Component>>> levels = List.of(stack);
            Version base = version(levels);
            if (!stableTruth(stackOrder(base), keysOf)) {
                continue; // the random seqnos made the base itself unstable: not a valid start
            }
            List<Component> all = base.components();
            List<Component> inputs = new ArrayList<>();
            for (Component c : all) {
                if (rnd.nextInt(3) == 0) {
                    inputs.add(c);
                }
            }
            if (inputs.isEmpty()) {
                continue;
            }
            Component out = mergeOf(inputs);
            keysOf.put(out.id().fileNumber(), inputs.stream().flatMapToInt(c -> Arrays.stream(keysOf.get(
                    c.id().fileNumber()))).distinct().sorted().toArray());
            Component anchor = inputs.get(rnd.nextInt(inputs.size()));
            try {
                check(base, inputs, out, Placement.intoRunOf(0, anchor.id()));
            } catch (Layouts.PolicyError e) {
                continue;
            }
            Set<ComponentId> removed = new HashSet<>();
            inputs.forEach(c -> removed.add(c.id()));
            List<List<Run>> result = Layouts.apply(base, removed, List.of(out), Placement.intoRunOf(0, anchor.id()),
                    () -> 99);
            // Truth: the output's versions of key k are the inputs' (newest position first is not
            // needed: it holds all of them); for each key, a newer-positioned table's versions must
            // all be newer than an older-positioned one's. Versions are tracked by their source table.
            assertTrue(stableAfterMerge(base, result, inputs, out, keysOf), "accepted an unstable merge of " + inputs
                    + " into the run of " + anchor + " (replay with -Dstrata.test.seed=" + seed + ")");
            accepted++;
        }
        assertTrue(accepted > 100, "the random cases exercised acceptance: " + accepted);
    }

    private static String key(int k) {
        return TestKeys.padded("k", k, 2);
    }

    private static List<Component> stackOrder(Version v) {
        List<Component> order = new ArrayList<>();
        for (List<Run> level : v.levels()) {
            for (Run r : level) {
                order.addAll(r.components());
            }
        }
        return order;
    }

    /** Position rank of each table (smaller is newer), runs in order; tables of one run share a rank. */
    private static java.util.Map<Long, Integer> ranks(List<List<Run>> levels) {
        java.util.Map<Long, Integer> rank = new java.util.HashMap<>();
        int i = 0;
        for (List<Run> level : levels) {
            for (Run r : level) {
                for (Component c : r.components()) {
                    rank.put(c.id().fileNumber(), i);
                }
                i++;
            }
        }
        return rank;
    }

    /** Base truth: for each key, tables holding it in position order have descending seqno ranges. */
    private static boolean stableTruth(List<Component> order, TreeMap<Long, int[]> keysOf) {
        for (int k = 0; k < 30; k++) {
            long floor = Long.MAX_VALUE;
            for (Component c : order) {
                if (Arrays.binarySearch(keysOf.get(c.id().fileNumber()), k) >= 0) {
                    if (c.meta().maxSeqno() >= floor) {
                        return false;
                    }
                    floor = c.meta().minSeqno();
                }
            }
        }
        return true;
    }

    /**
     * After the merge: every key's version sources (base tables, the output standing for its
     * inputs) are in order. A key's versions from a base table b are newer than those from a
     * base table b' iff b was above b' in the base (base stability). So the result is stable iff,
     * for every key, the sequence of source tables by result position respects base order, with
     * the output replaced by the inputs holding the key (which must be contiguous there).
     */
    private static boolean stableAfterMerge(Version base, List<List<Run>> result, List<Component> inputs,
                                            Component out, TreeMap<Long, int[]> keysOf) {
        java.util.Map<Long, Integer> before = ranks(base.levels());
        java.util.Map<Long, Integer> after = ranks(result);
        Set<Long> inputFiles = new HashSet<>();
        inputs.forEach(c -> inputFiles.add(c.id().fileNumber()));
        for (int k = 0; k < 30; k++) {
            int key = k;
            List<Long> holders = new ArrayList<>();
            for (Long f : before.keySet()) {
                if (Arrays.binarySearch(keysOf.get(f), key) >= 0) {
                    holders.add(f);
                }
            }
            // Compare every pair of holders: one in the inputs, one not.
            for (long a : holders) {
                for (long b : holders) {
                    if (inputFiles.contains(a) && !inputFiles.contains(b)) {
                        boolean aNewerBefore = before.get(a) < before.get(b);
                        boolean outNewerAfter = after.get(out.id().fileNumber()) < after.get(b);
                        if (aNewerBefore != outNewerAfter) {
                            return false;
                        }
                    }
                }
            }
        }
        return true;
    }
}
