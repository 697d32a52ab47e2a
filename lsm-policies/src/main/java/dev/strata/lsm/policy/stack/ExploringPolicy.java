package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;

import java.util.List;

/**
 * Exploring (HBase's default): add the flush as the newest component, then consider every
 * contiguous window of {@code minComponents}..{@code maxComponents} components in which
 * the largest is at most {@code lambda} times the sum of the others. If one exists, merge
 * the longest (most components; ties: smallest total) when there are at most k components,
 * else the one with the smallest average component length. If none exists and there are
 * more than k components, merge the {@code minComponents} contiguous components of
 * minimum total length. Not eager: the chosen window need not include the flush; such a
 * merge completes before the flush is installed, so the bound k holds at every instant.
 */
final class ExploringPolicy implements MergePolicy {
    private final int k;
    private final double lambda;
    private final int minComponents;
    private final int maxComponents;

    ExploringPolicy(int k, double lambda, int minComponents, int maxComponents) {
        this.k = k;
        this.lambda = lambda;
        this.minComponents = minComponents;
        this.maxComponents = Math.max(minComponents, maxComponents);
    }

    /** A chosen window [from, to) over the stack with the flush appended as index size(). */
    private record Window(int from, int to, String reason) {
    }

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        Stack stack = Stack.of(tree);
        int n = stack.size() + 1;
        long[] len = new long[n];
        for (int i = 0; i < n - 1; i++) {
            len[i] = stack.length(i);
        }
        len[n - 1] = flushed.sizeBytes();
        Window w = choose(len, n, stack);
        long t = tree.flushCounter() + 1;
        if (w == null) {
            return FlushPlan.newComponent(Placement.newRun(0), "exploring t=" + t + ": no window");
        }
        if (w.to == n) {
            return FlushPlan.mergeWith(stack.ids(w.from, n - 1), w.from == n - 1 ? Placement.newRun(0)
                    : stack.positionOf(w.from), "exploring t=" + t + ": " + w.reason + " including the flush");
        }
        MergeTask first = stack.merge(w.from, w.to, "exploring t=" + t + ": " + w.reason);
        return FlushPlan.newComponent(Placement.newRun(0), "exploring t=" + t + ": " + w.reason)
                .withMergesFirst(List.of(first));
    }

    private Window choose(long[] len, int n, Stack stack) {
        Window best = null;
        long bestTotal = 0;
        double bestAverage = 0;
        for (int from = 0; from < n; from++) {
            for (int to = from + minComponents; to <= Math.min(n, from + maxComponents); to++) {
                if (to <= stack.size() ? stack.busy(from, to) : stack.busy(from, stack.size())) {
                    continue;
                }
                long total = 0;
                long largest = 0;
                for (int i = from; i < to; i++) {
                    total += len[i];
                    largest = Math.max(largest, len[i]);
                }
                if (largest > lambda * (total - largest)) {
                    continue;
                }
                int count = to - from;
                double average = (double) total / count;
                boolean better;
                if (best == null) {
                    better = true;
                } else if (n <= k) {
                    int bestCount = best.to - best.from;
                    better = count > bestCount || (count == bestCount && total < bestTotal);
                } else {
                    better = average < bestAverage;
                }
                if (better) {
                    best = new Window(from, to, (n <= k ? "longest" : "smallest-average") + " window of " + count);
                    bestTotal = total;
                    bestAverage = average;
                }
            }
        }
        if (best != null || n <= k) {
            return best;
        }
        for (int from = 0; from + minComponents <= n; from++) {
            int to = from + minComponents;
            if (to <= stack.size() ? stack.busy(from, to) : stack.busy(from, stack.size())) {
                continue;
            }
            long total = 0;
            for (int i = from; i < to; i++) {
                total += len[i];
            }
            if (best == null || total < bestTotal) {
                best = new Window(from, to, "cheapest " + minComponents + " over k");
                bestTotal = total;
            }
        }
        return best;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        return List.of();
    }

    @Override
    public String toString() {
        return "exploring(k=" + k + ", lambda=" + lambda + ", min-components=" + minComponents + ", max-components="
                + maxComponents + ")";
    }
}
