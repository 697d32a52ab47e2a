package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentView;

/**
 * Constant (AsterixDB before 0.9.4): while fewer than k components exist the flush is
 * added; otherwise the flush is merged with all k into one.
 */
final class ConstantPolicy extends EagerStackPolicy {
    ConstantPolicy(int k) {
        super(k);
    }

    @Override
    int newestToMerge(Stack stack, ComponentView flushed, long t) {
        return stack.size() < k ? 0 : stack.size();
    }

    @Override
    String name() {
        return "constant";
    }
}
