package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.List;

/**
 * Concurrent, as AsterixDB's {@code ConcurrentMergePolicy} does it (its current default).
 * The longest run of newest components that are not being merged is scanned oldest to
 * newest; the window [start, start + maxMergeCount) (cut at the newest) is merged once it
 * holds at least {@code minMergeCount} components and the size of its oldest is at most
 * {@code sizeRatio} times the sum of the younger ones. Several such merges may run at once.
 *
 * <p>Flow control ({@code isMergeLagging}): writers wait while the component count is at
 * {@code maxComponentCount}. If the count is there, no merge is running and no window
 * qualifies (after a restart, or when {@code maxComponentCount < minMergeCount}), every
 * component is merged into one, as AsterixDB schedules a full merge — so writers can
 * never wait forever.
 */
final class ConcurrentPolicy implements MergePolicy {
    private final int minMergeCount;
    private final int maxMergeCount;
    private final int maxComponentCount;
    private final double sizeRatio;

    ConcurrentPolicy(int minMergeCount, int maxMergeCount, int maxComponentCount, double sizeRatio) {
        this.minMergeCount = minMergeCount;
        this.maxMergeCount = Math.max(minMergeCount, maxMergeCount);
        this.maxComponentCount = maxComponentCount;
        this.sizeRatio = sizeRatio;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        Stack stack = Stack.of(tree);
        int n = stack.size();
        int first = stack.idleSuffixStart();
        for (int start = first; n - start >= minMergeCount; start++) {
            int end = Math.min(n, start + maxMergeCount);
            long younger = 0;
            for (int i = start + 1; i < end; i++) {
                younger += stack.length(i);
            }
            if (stack.length(start) <= sizeRatio * younger) {
                return List.of(stack.merge(start, end, "concurrent: " + (end - start) + " components"));
            }
        }
        if (n >= maxComponentCount && n >= 2 && first == 0) {
            return List.of(stack.merge(0, n, "concurrent: full merge of " + n + " components, writers wait at "
                    + maxComponentCount + " and no window qualifies"));
        }
        return List.of();
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        return Stack.of(tree).size() >= maxComponentCount ? WriteAdmission.STOP : WriteAdmission.GO;
    }

    @Override
    public String toString() {
        return "concurrent(min-merge-count=" + minMergeCount + ", max-merge-count=" + maxMergeCount
                + ", max-component-count=" + maxComponentCount + ", size-ratio=" + sizeRatio + ")";
    }
}
