package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The facts about one {@link TreeView} that every primitive asks for: the deepest level,
 * per-level shapes, the run data arrives into, overlaps found by binary search, and which
 * components are taken (busy in the view, or claimed by a task picked in this round).
 * Mutable only in its claimed set; lives for one decision.
 */
final class TreeShape {
    final TreeView tree;
    final int lastLevel;
    private final Layout layout;
    private final Set<ComponentId> claimed = new HashSet<>();

    TreeShape(TreeView tree, Layout layout) {
        this.tree = tree;
        this.layout = layout;
        int last = 0;
        for (int i = 0; i < tree.levels().size(); i++) {
            if (tree.level(i).componentCount() > 0) {
                last = i;
            }
        }
        this.lastLevel = last;
        for (ComponentView c : tree.components()) {
            if (c.busy()) {
                claimed.add(c.id());
            }
        }
    }

    LevelShape shape(int level) {
        return layout.shape(level, lastLevel);
    }

    List<RunView> runs(int level) {
        return tree.level(level).runs();
    }

    /** The run data moving into a leveled {@code level} joins: its oldest run, or null if the level is empty. */
    RunView mainRun(int level) {
        List<RunView> runs = runs(level);
        return runs.isEmpty() ? null : runs.get(runs.size() - 1);
    }

    boolean free(ComponentView c) {
        return !claimed.contains(c.id());
    }

    boolean allFree(List<ComponentView> cs) {
        for (ComponentView c : cs) {
            if (!free(c)) {
                return false;
            }
        }
        return true;
    }

    void claim(List<ComponentView> cs) {
        for (ComponentView c : cs) {
            claimed.add(c.id());
        }
    }

    /** Components of {@code run} (null: none) whose key ranges intersect [min, max], by binary search. */
    static List<ComponentView> overlapping(RunView run, byte[] min, byte[] max) {
        return run == null ? List.of() : run.overlapping(min, max);
    }

    /** Components of every run of {@code level} whose key ranges intersect [min, max]. */
    List<ComponentView> overlappingInLevel(int level, byte[] min, byte[] max) {
        List<ComponentView> out = new ArrayList<>();
        for (RunView r : runs(level)) {
            out.addAll(overlapping(r, min, max));
        }
        return out;
    }

    /** Bytes of {@code level} overlapping [min, max] (whole files, as RocksDB counts). */
    long overlapBytes(int level, byte[] min, byte[] max) {
        long s = 0;
        for (ComponentView c : overlappingInLevel(level, min, max)) {
            s += c.sizeBytes();
        }
        return s;
    }

    static byte[] minKey(List<ComponentView> cs) {
        byte[] m = cs.get(0).minKey();
        for (ComponentView c : cs) {
            if (Arrays.compareUnsigned(c.minKey(), m) < 0) {
                m = c.minKey();
            }
        }
        return m;
    }

    static byte[] maxKey(List<ComponentView> cs) {
        byte[] m = cs.get(0).maxKey();
        for (ComponentView c : cs) {
            if (Arrays.compareUnsigned(c.maxKey(), m) > 0) {
                m = c.maxKey();
            }
        }
        return m;
    }

    static long bytes(List<ComponentView> cs) {
        long s = 0;
        for (ComponentView c : cs) {
            s += c.sizeBytes();
        }
        return s;
    }

    /** Tombstones held by {@code cs}. */
    static long tombstones(List<ComponentView> cs) {
        long s = 0;
        for (ComponentView c : cs) {
            s += c.tombstoneCount();
        }
        return s;
    }

    static List<ComponentView> all(List<RunView> runs) {
        List<ComponentView> out = new ArrayList<>();
        for (RunView r : runs) {
            out.addAll(r.components());
        }
        return out;
    }
}
