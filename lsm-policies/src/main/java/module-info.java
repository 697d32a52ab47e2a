/**
 * Strata's merge policies and the cost-model simulator. The policies are found by
 * {@code dev.strata.lsm} through the {@link dev.strata.lsm.policy.MergePolicyFactory} service
 * (on the class path through {@code META-INF/services}, which the jar keeps); the simulator
 * and the design-space presets are exported for applications to call.
 */
module dev.strata.lsm.policies {
    requires transitive dev.strata.lsm;

    exports dev.strata.lsm.policy.sim;
    exports dev.strata.lsm.policy.designspace;

    provides dev.strata.lsm.policy.MergePolicyFactory with
            dev.strata.lsm.policy.stack.StackPolicyFactories.Constant,
            dev.strata.lsm.policy.stack.StackPolicyFactories.Bigtable,
            dev.strata.lsm.policy.stack.StackPolicyFactories.Exploring,
            dev.strata.lsm.policy.stack.StackPolicyFactories.MinLatency,
            dev.strata.lsm.policy.stack.StackPolicyFactories.Binomial,
            dev.strata.lsm.policy.stack.StackPolicyFactories.Prefix,
            dev.strata.lsm.policy.stack.StackPolicyFactories.Concurrent,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.Full,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.LeastOverlapParent,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.LeastOverlapGrandparent,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.RoundRobin,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.Coldest,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.Oldest,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.TombstoneDensity,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.TombstoneAge,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.Tier,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.OneLeveling,
            dev.strata.lsm.policy.designspace.DesignSpacePolicyFactory.BlockDb,
            dev.strata.lsm.policy.spooky.SpookyPolicyFactory,
            dev.strata.lsm.policy.vlsm.VlsmPolicyFactory;
}
