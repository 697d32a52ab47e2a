package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.List;

/**
 * Prefix, as AsterixDB's {@code PrefixMergePolicy} does it. A component is <em>mergeable</em>
 * when it is at most {@code maxMergableBytes} and not being merged. Scanning starts
 * oldest to newest: from each mergeable start the following mergeable components are
 * added one by one, and the run is merged as soon as its total exceeds
 * {@code maxMergableBytes} while its oldest member is smaller than 1.2 times the sum of the
 * younger ones (a run that ends at a large or busy component is a candidate too). Only when
 * the run reaches the newest component without the size rule firing may the count rule
 * fire: every component from the start to the newest is merged when there are at least
 * {@code maxToleranceCount} of them and the ratio holds. A start that cannot meet the ratio
 * is skipped and the scan goes on with the next one. At most one merge runs at a time.
 *
 * <p>Flow control ({@code isMergeLagging}): while a merge runs and the run the rule would
 * merge beside it holds {@code maxToleranceCount} or more components, writers wait; when
 * no merge is running {@link #pickMerges} starts that very run, so writers never wait on
 * nothing. The count of
 * small components therefore cannot grow without bound however slow merges are.
 */
final class PrefixPolicy implements MergePolicy {
    /** AsterixDB's fixed MAX_MERGABLE_COMPONENT_SIZE_RATIO (taken from HBase). */
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
        if (stack.busy(0, stack.size())) {
            return List.of();
        }
        int[] run = mergeableRun(stack);
        if (run == null) {
            return List.of();
        }
        long total = 0;
        for (int i = run[0]; i < run[1]; i++) {
            total += stack.length(i);
        }
        return List.of(stack.merge(run[0], run[1], "prefix: " + (run[1] - run[0]) + " components, " + total + " bytes"));
    }

    /**
     * AsterixDB's {@code isMergeLagging}, asked as AsterixDB asks it: once the merge that
     * {@link #pickMerges} starts on this same view is running. The engine asks for admission
     * with the view it just picked merges from, before their inputs are marked busy; were
     * they counted, writers would wait for every merge the tolerance triggers, where
     * AsterixDB lets them go on until the components beside the running merge lag too.
     */
    @Override
    public WriteAdmission admission(TreeView tree) {
        Stack stack = Stack.of(tree);
        int[] starting = stack.busy(0, stack.size()) ? null : mergeableRun(stack, -1, -1);
        int[] run = starting == null ? mergeableRun(stack, -1, -1) : mergeableRun(stack, starting[0], starting[1]);
        int count = run == null ? 0 : run[1] - run[0];
        return count < maxToleranceCount ? WriteAdmission.GO : WriteAdmission.STOP;
    }

    private boolean mergeable(Stack stack, int i, int busyFrom, int busyTo) {
        return stack.length(i) <= maxMergableBytes && !stack.busy(i, i + 1) && (i < busyFrom || i >= busyTo);
    }

    /** The run [from, to) (oldest-first indexes) the rule picks, or null. */
    int[] mergeableRun(Stack stack) {
        return mergeableRun(stack, -1, -1);
    }

    /** As {@link #mergeableRun(Stack)} with components [busyFrom, busyTo) taken as being merged. */
    private int[] mergeableRun(Stack stack, int busyFrom, int busyTo) {
        int n = stack.size();
        for (int start = 0; start < n; start++) {
            if (!mergeable(stack, start, busyFrom, busyTo)) {
                continue;
            }
            long first = stack.length(start);
            long total = first;
            boolean ratioHolds = true;
            int end = start + 1;
            for (; end < n; end++) {
                if (!mergeable(stack, end, busyFrom, busyTo)) {
                    break;
                }
                long size = stack.length(end);
                total += size;
                ratioHolds = first < SIZE_RATIO * (total - first);
                if (total > maxMergableBytes && ratioHolds) {
                    return new int[] {start, end + 1};
                }
                // Even if every remaining component were as large as this one the ratio could not be met.
                if (first >= SIZE_RATIO * (total + (double) size * (n - end - 1) - first)) {
                    break;
                }
            }
            if (end != n) {
                continue;
            }
            if (n - start >= maxToleranceCount && ratioHolds) {
                return new int[] {start, n};
            }
            if (n - start < maxToleranceCount) {
                return null;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "prefix(max-mergable-component-size=" + maxMergableBytes + ", max-tolerance-component-count="
                + maxToleranceCount + ")";
    }
}
