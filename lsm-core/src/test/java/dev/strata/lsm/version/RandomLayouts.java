package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;

import dev.strata.lsm.testkit.TestKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Random changes to a tree's layout, for replay tests: new runs of new components anywhere,
 * merges (components removed, outputs added to a new or existing run), moves of components
 * to other runs and levels, run reorders, and now and then a run out of key order.
 */
final class RandomLayouts {
    private static final Comparator<Component> KEY_ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.meta().minKey(), b.meta().minKey());
        return c != 0 ? c : Arrays.compareUnsigned(a.meta().maxKey(), b.meta().maxKey());
    };

    private RandomLayouts() {
    }

    static Component component(Random rnd, long n) {
        String min = TestKeys.padded("", rnd.nextInt(1_000_000), 6);
        return new Component(new ComponentMeta(new ComponentId(n, rnd.nextInt(3) * 4096L), 1000 + n, 10, n % 3, 50,
                min.getBytes(), (min + "~").getBytes(), n, n, n, 1_700_000_000_000L + n,
                n % 3 == 0 ? ComponentView.NO_TOMBSTONE : 1_600_000_000_000L + n), null);
    }

    /** One random change of {@code v}; {@code ids} holds the next component number and run id. */
    static Version step(Version v, Random rnd, long[] ids) {
        List<List<List<Component>>> levels = new ArrayList<>();
        List<List<Long>> runIds = new ArrayList<>();
        for (List<Run> level : v.levels()) {
            List<List<Component>> runs = new ArrayList<>();
            List<Long> rids = new ArrayList<>();
            for (Run r : level) {
                runs.add(new ArrayList<>(r.components()));
                rids.add(r.id());
            }
            levels.add(runs);
            runIds.add(rids);
        }
        int op = rnd.nextInt(10);
        if (op < 4 || v.components().isEmpty()) {
            int level = rnd.nextInt(4);
            grow(levels, runIds, level);
            List<Component> run = new ArrayList<>();
            for (int i = 0, n = 1 + rnd.nextInt(3); i < n; i++) {
                run.add(component(rnd, ids[0]++));
            }
            int at = rnd.nextInt(levels.get(level).size() + 1);
            levels.get(level).add(at, run);
            runIds.get(level).add(at, ids[1]++);
        } else if (op < 7) {
            // A merge: some components out, outputs into a new or an existing run.
            List<Component> all = v.components();
            for (int i = 0, n = 1 + rnd.nextInt(Math.min(4, all.size())); i < n; i++) {
                Component gone = all.get(rnd.nextInt(all.size()));
                levels.forEach(l -> l.forEach(r -> r.remove(gone)));
            }
            int level = rnd.nextInt(4);
            grow(levels, runIds, level);
            List<Component> outputs = new ArrayList<>();
            for (int i = 0, n = rnd.nextInt(3); i < n; i++) {
                outputs.add(component(rnd, ids[0]++));
            }
            if (!levels.get(level).isEmpty() && rnd.nextBoolean()) {
                levels.get(level).get(rnd.nextInt(levels.get(level).size())).addAll(outputs);
            } else {
                levels.get(level).add(0, outputs);
                runIds.get(level).add(0, ids[1]++);
            }
        } else if (op < 9) {
            // A move: one component to another run, maybe on another level.
            List<Component> all = v.components();
            Component moved = all.get(rnd.nextInt(all.size()));
            levels.forEach(l -> l.forEach(r -> r.remove(moved)));
            int level = rnd.nextInt(4);
            grow(levels, runIds, level);
            if (!levels.get(level).isEmpty() && rnd.nextBoolean()) {
                levels.get(level).get(rnd.nextInt(levels.get(level).size())).add(moved);
            } else {
                int at = rnd.nextInt(levels.get(level).size() + 1);
                levels.get(level).add(at, new ArrayList<>(List.of(moved)));
                runIds.get(level).add(at, ids[1]++);
            }
        } else {
            // Two runs of a level swap places.
            int level = rnd.nextInt(levels.size());
            if (levels.get(level).size() >= 2) {
                java.util.Collections.swap(levels.get(level), 0, levels.get(level).size() - 1);
                java.util.Collections.swap(runIds.get(level), 0, runIds.get(level).size() - 1);
            }
        }
        boolean keyOrder = rnd.nextInt(20) != 0;
        List<List<Run>> out = new ArrayList<>();
        for (int l = 0; l < levels.size(); l++) {
            List<Run> runs = new ArrayList<>();
            for (int r = 0; r < levels.get(l).size(); r++) {
                List<Component> comps = levels.get(l).get(r);
                if (comps.isEmpty()) {
                    continue;
                }
                comps.sort(KEY_ORDER);
                if (!keyOrder && comps.size() >= 2) {
                    java.util.Collections.reverse(comps);
                }
                runs.add(new Run(runIds.get(l).get(r), comps));
            }
            out.add(runs);
        }
        return new Version(out, v.flushCounter() + 1, new byte[0]);
    }

    private static void grow(List<List<List<Component>>> levels, List<List<Long>> runIds, int level) {
        while (levels.size() <= level) {
            levels.add(new ArrayList<>());
            runIds.add(new ArrayList<>());
        }
    }
}
