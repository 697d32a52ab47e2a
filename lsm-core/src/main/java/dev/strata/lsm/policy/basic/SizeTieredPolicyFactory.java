package dev.strata.lsm.policy.basic;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * {@code size-tiered}, lsm-core's own policy (the default of a new store without lsm-policies, and
 * of a store that records no policy): a stack of runs in level 0 where {@code fanout}
 * neighbouring runs of similar size are merged into one, and all runs are merged into one
 * when the newer runs outgrow the oldest by {@code max-size-amplification} (see
 * {@link SizeTieredPolicy}).
 */
public final class SizeTieredPolicyFactory implements MergePolicyFactory {
    public static final String NAME = "size-tiered";

    @Override

    public String module() {

        return "lsm-core";

    }


    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "merges `fanout` neighbouring runs of similar size, and all runs when the newer ones outgrow the oldest "
                + "`max-size-amplification` times; writers wait at `max-runs` runs";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of(
                PolicyParameter.ofInt("fanout", 4, 2, 64, "runs merged at once"),
                PolicyParameter.ofDouble("size-ratio", 2.0, 1.0, 1000.0,
                        "runs are similar when the largest is at most this times the smallest"),
                PolicyParameter.ofInt("max-runs", 24, 2, 1000,
                        "writers wait while this many runs exist and a merge is needed"),
                PolicyParameter.ofDouble("max-size-amplification", 2.0, 0.1, 1000.0,
                        "all runs are merged into one when the runs above the oldest hold more than this times "
                                + "its bytes"));
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        return new SizeTieredPolicy(params.getInt("fanout"), params.getDouble("size-ratio"), params.getInt("max-runs"),
                params.getDouble("max-size-amplification"));
    }
}
