package dev.strata.lsm.config;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test-only policy factory that counts how often its parameters are resolved (every
 * resolution asks {@link #parameters()} once) and policies created. Not registered as a
 * service: {@link ConfigValidatedOnceTest} makes it visible through a context class loader of
 * its own, so no other test sees it. The counters are shared by every instance, since the
 * service loader makes a new factory at each lookup.
 */
public final class CountingPolicyFactory implements MergePolicyFactory {
    public static final String NAME = "counting";
    static final AtomicInteger RESOLVED = new AtomicInteger();
    static final AtomicInteger CREATED = new AtomicInteger();
    static volatile PolicyParameters lastCreated;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "never merges; counts parameter resolutions and creations (test only)";
    }

    @Override
    public List<PolicyParameter> parameters() {
        RESOLVED.incrementAndGet();
        return List.of(PolicyParameter.ofInt("fanout", 4, 2, 64, "a parameter to parse"),
                PolicyParameter.ofBytes("unit", 1 << 20, 1, 1L << 40, "another"));
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        CREATED.incrementAndGet();
        lastCreated = params;
        return tree -> List.of();
    }
}
