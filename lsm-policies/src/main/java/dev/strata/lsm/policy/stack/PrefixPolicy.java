package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;

import java.util.List;

/**
 * Prefix (AsterixDB): considering the newest components that are neither larger than
 * {@code maxMergableBytes} nor being merged, and scanning them oldest to newest, merge the
 * first contiguous run whose total exceeds {@code maxMergableBytes} or whose length
 * reaches {@code maxToleranceCount}, provided its oldest member is smaller than 1.2 times
 * the sum of the younger ones. Flushes are added as new components.
 */
final class PrefixPolicy implements MergePolicy {
    static final double SIZE_RATIO = 1.2;

    private final long maxMergableBytes;
    private final int maxToleranceCount;

    PrefixPolicy(long maxMergableBytes, int maxToleranceCount) {
        this.maxMergableBytes = maxMergableBytes;
        this.maxToleranceCount = maxToleranceCount;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        Stack stack = Stack.of(tree);
        int n = stack.size();
        int first = n;
        while (first > 0 && !stack.get(first - 1).busy() && stack.length(first - 1) <= maxMergableBytes) {
            first--;
        }
        for (int start = first; start < n; start++) {
            long total = 0;
            for (int end = start; end < n; end++) {
                total += stack.length(end);
                int count = end - start + 1;
                if (count >= 2 && (total > maxMergableBytes || count >= maxToleranceCount)) {
                    long younger = total - stack.length(start);
                    if (stack.length(start) < SIZE_RATIO * younger) {
                        return List.of(stack.merge(start, end + 1, "prefix: " + count + " components, "
                                + total + " bytes"));
                    }
                    break;
                }
            }
        }
        return List.of();
    }
}
