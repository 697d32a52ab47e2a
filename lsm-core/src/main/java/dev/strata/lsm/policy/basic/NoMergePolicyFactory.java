package dev.strata.lsm.policy.basic;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/** {@code no-merge}: every flush becomes a new component and nothing is ever merged (tests, bulk loads). */
public final class NoMergePolicyFactory implements MergePolicyFactory {
    public static final String NAME = "no-merge";

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
        return "never merges; every flush adds a component";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of();
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        return tree -> List.of();
    }
}
