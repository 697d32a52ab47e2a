package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.List;

/**
 * The stack of components a stack-based policy manages: level 0, one component per run,
 * read here oldest first (index 0 is the oldest), the order the papers use.
 */
final class Stack {
    private final List<ComponentView> oldestFirst;

    private Stack(List<ComponentView> oldestFirst) {
        this.oldestFirst = oldestFirst;
    }

    static Stack of(TreeView tree) {
        List<RunView> runs = tree.level(0).runs();
        List<ComponentView> comps = new ArrayList<>(runs.size());
        for (int i = runs.size() - 1; i >= 0; i--) {
            comps.addAll(runs.get(i).components());
        }
        return new Stack(comps);
    }

    int size() {
        return oldestFirst.size();
    }

    ComponentView get(int i) {
        return oldestFirst.get(i);
    }

    long length(int i) {
        return oldestFirst.get(i).sizeBytes();
    }

    /** Ids of components [from, to) (oldest-first indexes). */
    List<ComponentId> ids(int from, int to) {
        List<ComponentId> ids = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            ids.add(oldestFirst.get(i).id());
        }
        return ids;
    }

    /** Whether any component in [from, to) is being merged. */
    boolean busy(int from, int to) {
        for (int i = from; i < to; i++) {
            if (oldestFirst.get(i).busy()) {
                return true;
            }
        }
        return false;
    }

    /** Index of the oldest component of the newest run of idle components (size() if the newest is busy). */
    int idleSuffixStart() {
        int i = oldestFirst.size();
        while (i > 0 && !oldestFirst.get(i - 1).busy()) {
            i--;
        }
        return i;
    }

    /** A merge of [from, to) into the position of component {@code from}. */
    MergeTask merge(int from, int to, String reason) {
        return MergeTask.of(ids(from, to), Placement.intoRunOf(0, oldestFirst.get(from).id()), reason);
    }

    /** Where the merge of [from, size()) with a flush lands: the position of component {@code from}. */
    Placement positionOf(int from) {
        return Placement.intoRunOf(0, oldestFirst.get(from).id());
    }

    /** Sizes, oldest first, for messages. */
    @Override
    public String toString() {
        List<Long> sizes = new ArrayList<>();
        for (ComponentView c : oldestFirst) {
            sizes.add(c.sizeBytes());
        }
        return sizes.toString();
    }
}
