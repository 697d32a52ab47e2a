package dev.strata.lsm.policy.basic;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * {@code size-tiered}, the store's default: a stack of runs in level 0 where {@code fanout}
 * neighbouring runs of similar size are merged into one (see {@link SizeTieredPolicy}).
 */
public final class SizeTieredPolicyFactory implements MergePolicyFactory {
    public static final String NAME = "size-tiered";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "merges `fanout` neighbouring runs of similar size; writers wait at `max-runs` runs";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of(
                PolicyParameter.ofInt("fanout", 4, 2, 64, "runs merged at once"),
                PolicyParameter.ofDouble("size-ratio", 2.0, 1.0, 1000.0,
                        "runs are similar when the largest is at most this times the smallest"),
                PolicyParameter.ofInt("max-runs", 24, 2, 1000,
                        "writers wait while this many runs exist and a merge is needed"));
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        return new SizeTieredPolicy(params.getInt("fanout"), params.getDouble("size-ratio"), params.getInt("max-runs"));
    }
}
