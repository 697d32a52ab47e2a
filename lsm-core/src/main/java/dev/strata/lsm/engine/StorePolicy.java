package dev.strata.lsm.engine;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.version.PolicyRecord;
import dev.strata.lsm.version.VersionSet;

import java.nio.file.Path;

/**
 * Which merge policy a store's own tree runs, and what its manifest records (docs/policies.md,
 * "The default policy and what a store records"):
 *
 * <ol>
 *   <li>a policy the configuration names ({@link StoreConfig#mergePolicyNamed()}) runs and is
 *       recorded; an instance runs and leaves the record as it was (nothing on disk can name it);</li>
 *   <li>else the policy the manifest records, which must be on the class path;</li>
 *   <li>else, for a store created before stores recorded their policy, {@code size-tiered},
 *       its policy then (so it keeps its shape);</li>
 *   <li>else, for a new store, {@link StoreConfig#NEW_STORE_MERGE_POLICY} with its default
 *       parameters when a registered factory provides it (lsm-policies on the class path),
 *       otherwise {@link StoreConfig#FALLBACK_MERGE_POLICY}.</li>
 * </ol>
 *
 * <p>Column families are not chosen here: a family's own policy is in the family catalog, and
 * one created without follows the store's (the configuration {@link #effective()} returns).
 * One per open, used by the opening thread only.
 */
final class StorePolicy implements VersionSet.PolicyChoice {
    private final StoreConfig config;
    private final Path dir;
    /** The configuration the store runs; set by {@link #choose}. */
    private StoreConfig effective;

    /** The choice for the store in {@code dir} opened with {@code config}. */
    StorePolicy(StoreConfig config, Path dir) {
        this.config = config;
        this.dir = dir;
    }

    /**
     * The policy the store's manifest records from this open on; also settles
     * {@link #effective()}. Throws, before the open writes anything, for a recorded policy this
     * build cannot run.
     *
     * @throws ConfigException naming the store and the recorded policy when it is not on the
     *     class path or its parameters no longer validate
     */
    @Override
    public PolicyRecord choose(PolicyRecord recorded, boolean newStore) {
        if (config.mergePolicyInstance() != null) {
            effective = config;
            return recorded;
        }
        if (config.mergePolicyNamed()) {
            effective = config;
            return PolicyRecord.of(config.mergePolicy(), config.mergePolicyParams());
        }
        PolicyRecord chosen;
        if (recorded != null) {
            checkAvailable(recorded);
            chosen = recorded;
        } else if (newStore && MergePolicies.names().contains(StoreConfig.NEW_STORE_MERGE_POLICY)) {
            chosen = PolicyRecord.of(StoreConfig.NEW_STORE_MERGE_POLICY, null);
        } else {
            chosen = PolicyRecord.of(StoreConfig.FALLBACK_MERGE_POLICY, null);
        }
        try {
            effective = config.withStoreChosenMergePolicy(chosen.name(), chosen.params());
        } catch (ConfigException e) {
            throw new ConfigException("store " + dir + " records merge policy " + chosen + " in its manifest, which"
                    + " this build rejects: " + e.getMessage() + "; name a merge policy in the configuration",
                    e.setting(), e);
        }
        return chosen;
    }

    /**
     * The configuration the store runs: the one it was opened with when that names its policy
     * (or gives an instance), else that one running the chosen policy, still naming none (so
     * that {@link dev.strata.lsm.LsmStore#config()} reports what runs).
     *
     * @throws IllegalStateException before {@link #choose} was called
     */
    StoreConfig effective() {
        if (effective == null) {
            throw new IllegalStateException("the store's merge policy is chosen when its manifest is read");
        }
        return effective;
    }

    private void checkAvailable(PolicyRecord recorded) {
        if (!MergePolicies.names().contains(recorded.name())) {
            throw new ConfigException("store " + dir + " records merge policy '" + recorded.name()
                    + "' in its manifest, which is not on the class path (available: "
                    + String.join(", ", MergePolicies.names()) + "); put the module that provides it on the class"
                    + " path (lsm-policies for the policies Strata ships), or name a merge policy in the"
                    + " configuration", "mergePolicy", null);
        }
    }
}
