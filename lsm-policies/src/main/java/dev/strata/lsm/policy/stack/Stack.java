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
 * The stack a stack-based policy manages: the runs of level 0, read here oldest first
 * (index 0 is the oldest), the order the papers use. Under these policies every run holds
 * one component; a store reopened with a stack policy after a partitioned one (a leveled
 * level 0, say) may hold runs of several disjoint components. Each run is one element of
 * the stack, so a merge never takes part of a run (the output would overlap the rest of
 * it). Components below level 0, left by another policy, are older than everything here
 * and stay where they are.
 */
final class Stack {
    private final List<RunView> oldestFirst;

    private Stack(List<RunView> oldestFirst) {
        this.oldestFirst = oldestFirst;
    }

    static Stack of(TreeView tree) {
        List<RunView> runs = tree.level(0).runs();
        List<RunView> oldestFirst = new ArrayList<>(runs.size());
        for (int i = runs.size() - 1; i >= 0; i--) {
            if (!runs.get(i).components().isEmpty()) {
                oldestFirst.add(runs.get(i));
            }
        }
        return new Stack(oldestFirst);
    }

    int size() {
        return oldestFirst.size();
    }

    /** Bytes of element {@code i}: its run's components together. */
    long length(int i) {
        long bytes = 0;
        for (ComponentView c : oldestFirst.get(i).components()) {
            bytes += c.sizeBytes();
        }
        return bytes;
    }

    /** Ids of every component of elements [from, to) (oldest-first indexes). */
    List<ComponentId> ids(int from, int to) {
        List<ComponentId> ids = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            for (ComponentView c : oldestFirst.get(i).components()) {
                ids.add(c.id());
            }
        }
        return ids;
    }

    /** Whether any component in elements [from, to) is being merged. */
    boolean busy(int from, int to) {
        for (int i = from; i < to; i++) {
            for (ComponentView c : oldestFirst.get(i).components()) {
                if (c.busy()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Index of the oldest element of the newest stretch of idle elements (size() if the newest is busy). */
    int idleSuffixStart() {
        int i = oldestFirst.size();
        while (i > 0 && !busy(i - 1, i)) {
            i--;
        }
        return i;
    }

    /** A merge of [from, to) into the position of element {@code from}. */
    MergeTask merge(int from, int to, String reason) {
        return MergeTask.of(ids(from, to), positionOf(from), reason);
    }

    /** Where the merge of [from, size()) with a flush lands: the position of element {@code from}. */
    Placement positionOf(int from) {
        return Placement.intoRunOf(0, oldestFirst.get(from).components().get(0).id());
    }

    /** Sizes, oldest first, for messages. */
    @Override
    public String toString() {
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < oldestFirst.size(); i++) {
            sizes.add(length(i));
        }
        return sizes.toString();
    }
}
