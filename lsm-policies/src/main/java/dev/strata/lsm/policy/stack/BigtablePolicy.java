package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentView;

/**
 * Bigtable: while fewer than k components exist the flush is added; otherwise it is
 * merged with the i newest components, i minimal such that afterwards every component is
 * longer than the sum of all newer ones.
 */
final class BigtablePolicy extends EagerStackPolicy {
    BigtablePolicy(int k) {
        super(k);
    }

    @Override
    int newestToMerge(Stack stack, ComponentView flushed, long t) {
        int n = stack.size();
        if (n < k) {
            return 0;
        }
        long merged = flushed.sizeBytes();
        for (int i = 1; i <= n; i++) {
            merged += stack.length(n - i);
            // After merging the i newest, components 0..n-i-1 remain, then the merged one.
            if (holds(stack, n - i, merged)) {
                return i;
            }
        }
        return n;
    }

    /** Whether each of components [0, remaining) is longer than the sum of all newer ones. */
    private static boolean holds(Stack stack, int remaining, long newest) {
        long newer = newest;
        for (int j = remaining - 1; j >= 0; j--) {
            if (stack.length(j) <= newer) {
                return false;
            }
            newer += stack.length(j);
        }
        return true;
    }

    @Override
    String name() {
        return "bigtable";
    }
}
