package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentView;

/**
 * MinLatency and Binomial (Mathieu et al.): at flush t, with i from the policy's static
 * schedule, the i-th oldest component is merged with all newer ones and the flush, leaving
 * i components; if i exceeds the count, the flush becomes a new component. The flush
 * counter t is durable, so the schedule resumes after a restart.
 */
final class StaticSchedulePolicy extends EagerStackPolicy {
    private final boolean binomial;

    StaticSchedulePolicy(int k, boolean binomial) {
        super(k);
        this.binomial = binomial;
    }

    /** The number of components the schedule leaves after flush t. */
    int componentsAfter(long t) {
        return binomial ? BinomialSchedule.binomial(k, t) : BinomialSchedule.minLatency(k, t);
    }

    @Override
    int newestToMerge(Stack stack, ComponentView flushed, long t) {
        int i = componentsAfter(t);
        int n = stack.size();
        return i > n ? 0 : n - i + 1;
    }

    @Override
    String name() {
        return binomial ? "binomial" : "minlatency";
    }
}
