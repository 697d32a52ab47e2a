package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * VL3 (FAMILIES.md §3.6): on random trees (level-2 regions from dense to empty, some level-2
 * SSTs busy), the level-1 → level-2 merge {@code vlsm} picks is exactly the one a brute-force
 * reference picks among every window of adjacent level-1 vSSTs — all idle and good (O ≤ f,
 * O counted in level-2 SSTs or read as bytes per byte), or all poor when no idle vSST is good;
 * minimal (S_M bytes reached only with its last vSST) or, when it cannot reach S_M, as long as
 * it can get; full windows first, then the lowest level-2 bytes per byte moved, then the
 * leftmost — and it reads exactly the level-2 SSTs the window's range intersects.
 * Replay a seed with {@code -Dstrata.test.seed=N}.
 */
class VlsmWindowTest {
    private static final long SM = 4096;
    private static final int F = 4;
    /**
     * Random trees per overlap measure: 300 in the fast lane (seed 33 gives 280 full windows, 20
     * short and 45 poor ones, each branch more than twice the bound asserted), 900 in the slow lane
     * ({@link VlsmWindowSlowTest}).
     */
    private static final int ROUNDS = TestScale.scaled(300);

    @ParameterizedTest(name = "overlap={0}")
    @ValueSource(strings = {"count", "bytes"})
    void picksTheReferenceWindowOnRandomTrees(String overlap) {
        long seed = dev.strata.lsm.testkit.TestSeed.orDefault(33);
        Random rnd = new Random(seed);
        MergePolicy policy = MergePolicies.create("vlsm", Map.of("sst-bytes", Long.toString(SM), "growth",
                Integer.toString(F), "phi", "1000", "overlap", overlap));
        int full = 0;
        int partial = 0;
        int poor = 0;
        for (int round = 0; round < ROUNDS; round++) {
            List<ComponentView> l1 = new ArrayList<>();
            List<ComponentView> l2 = new ArrayList<>();
            randomTree(rnd, l1, l2);
            TreeView tree = new TreeView(List.of(
                    new LevelView(0, List.of(new RunView(List.of(file(1, 0, 99_999, SM, false))))),
                    new LevelView(1, List.of(new RunView(l1))),
                    new LevelView(2, List.of(new RunView(l2)))), 0, new byte[0], null);
            Window want = reference(l1, l2, overlap.equals("count"), Set.of(), SM, F);
            MergeTask got = policy.pickMerges(tree).stream().filter(t -> t.placement().level() == 2).findFirst()
                    .orElse(null);
            String where = "seed " + seed + " round " + round + " (replay with -Dstrata.test.seed=" + seed + ")";
            if (want == null) {
                assertEquals(null, got, where);
                continue;
            }
            assertTrue(got != null, "no level-1 merge; want " + want + ", " + where);
            Set<ComponentId> expected = new HashSet<>();
            l1.subList(want.from, want.to + 1).forEach(c -> expected.add(c.id()));
            want.below.forEach(c -> expected.add(c.id()));
            assertEquals(expected, new HashSet<>(got.inputs()), "window " + want + " vs " + got + ", " + where);
            full += want.full ? 1 : 0;
            partial += want.full ? 0 : 1;
            poor += want.poor ? 1 : 0;
        }
        // The random trees must reach every branch.
        System.out.printf("vlsm windows (overlap=%s, seed %d): full %d, short %d, poor %d%n", overlap, seed, full,
                partial, poor);
        assertTrue(full > 100 && partial > 10 && poor > 20, "windows: full " + full + ", short " + partial + ", poor "
                + poor);
    }

    /** A candidate window [from, to] of level 1 and the level-2 SSTs its range intersects. */
    record Window(int from, int to, long bytes, List<ComponentView> below, boolean full, boolean poor) {
        double ratio() {
            return (double) below.stream().mapToLong(ComponentView::sizeBytes).sum() / Math.max(1, bytes);
        }
    }

    /**
     * The window vSSTs {@code l1} (adjacent, in key order) offer over {@code l2} with S_M =
     * {@code sm} and f = {@code f}; a component is unavailable when busy or in {@code claimed};
     * null when no window exists.
     */
    static Window reference(List<ComponentView> l1, List<ComponentView> l2, boolean count, Set<ComponentId> claimed,
                            long sm, int f) {
        int n = l1.size();
        boolean[] idle = new boolean[n];
        boolean[] good = new boolean[n];
        boolean anyGood = false;
        for (int i = 0; i < n; i++) {
            List<ComponentView> below = intersecting(l2, l1.get(i), l1.get(i));
            idle[i] = available(l1.get(i), claimed) && below.stream().allMatch(c -> available(c, claimed));
            long bytes = below.stream().mapToLong(ComponentView::sizeBytes).sum();
            good[i] = count ? below.size() <= f : bytes <= (double) f * Math.max(1, l1.get(i).sizeBytes());
            anyGood |= idle[i] && good[i];
        }
        List<Window> windows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                boolean allowed = true;
                long bytes = 0;
                for (int k = i; k <= j; k++) {
                    allowed &= idle[k] && good[k] == anyGood;
                    bytes += l1.get(k).sizeBytes();
                }
                long withoutLast = bytes - l1.get(j).sizeBytes();
                boolean full = bytes >= sm;
                boolean minimalOrLongest = full ? withoutLast < sm
                        : j + 1 == n || !idle[j + 1] || good[j + 1] != anyGood;
                if (!allowed || !minimalOrLongest) {
                    continue;
                }
                List<ComponentView> below = intersecting(l2, l1.get(i), l1.get(j));
                if (below.stream().allMatch(c -> available(c, claimed))) {
                    windows.add(new Window(i, j, bytes, below, full, !anyGood));
                }
            }
        }
        return windows.stream().min(Comparator.comparing((Window w) -> !w.full).thenComparingDouble(Window::ratio)
                .thenComparingInt(Window::from)).orElse(null);
    }

    private static boolean available(ComponentView c, Set<ComponentId> claimed) {
        return !c.busy() && !claimed.contains(c.id());
    }

    private static List<ComponentView> intersecting(List<ComponentView> l2, ComponentView first, ComponentView last) {
        return l2.stream().filter(c -> c.overlaps(first.minKey(), last.maxKey())).toList();
    }

    /**
     * Level 1: 8–20 adjacent vSSTs of 256 B–4 KiB holding more than f·S_M − S_M (so level 1
     * lacks room); level 2: files 20–4,000 keys wide with gaps, from dense to empty regions
     * (in one tree in five 5–25 keys wide with gaps of at most 4 keys: every vSST but a very
     * narrow one is poor), one in 15 busy (one in 3,000 in those dense trees).
     */
    private static void randomTree(Random rnd, List<ComponentView> l1, List<ComponentView> l2) {
        int vssts = 8 + rnd.nextInt(13);
        TreeSet<Integer> bounds = new TreeSet<>();
        while (bounds.size() < 2 * vssts) {
            bounds.add(rnd.nextInt(100_000));
        }
        List<Integer> b = new ArrayList<>(bounds);
        long total = 0;
        long id = 10;
        for (int i = 0; i < vssts; i++) {
            long size = 256 + rnd.nextInt(3841);
            total += size;
            l1.add(file(id++, b.get(2 * i), b.get(2 * i + 1), size, false));
        }
        long extra = F * SM - SM + 1 - total;
        if (extra > 0) { // grow the last vSST so that level 1 lacks room for the level-0 SST
            ComponentView last = l1.remove(l1.size() - 1);
            l1.add(file(last.id().fileNumber(), b.get(2 * vssts - 2), b.get(2 * vssts - 1), last.sizeBytes() + extra, false));
        }
        id = 1_000;
        boolean dense = rnd.nextInt(5) == 0; // a level 2 where (almost) every vSST is poor
        int k = rnd.nextInt(200);
        while (k < 100_000) {
            int width = dense ? 5 + rnd.nextInt(20) : rnd.nextInt(4) == 0 ? 20 + rnd.nextInt(80) : 100 + rnd.nextInt(3_900);
            int end = Math.min(99_999, k + width);
            l2.add(file(id++, k, end, 1 + rnd.nextInt(8_000), rnd.nextInt(dense ? 3_000 : 15) == 0));
            k = end + 1 + (dense ? rnd.nextInt(5) : rnd.nextInt(3) == 0 ? rnd.nextInt(6_000) : rnd.nextInt(50));
        }
    }

    private static ComponentView file(long id, int lo, int hi, long bytes, boolean busy) {
        return ComponentView.builder(new ComponentId(id, 0)).sizeBytes(bytes).entries(Math.max(1, bytes / 100), 0)
                .userBytes(bytes).keyRange(VlsmCutTest.key(lo), VlsmCutTest.key(hi)).seqnos(id, id).creation(id, 0)
                .busy(busy).build();
    }
}
