package dev.strata.lsm.policy;

import java.util.List;
import java.util.OptionalInt;

/**
 * Creates a named merge policy from typed parameters. Implementations are found with
 * {@link java.util.ServiceLoader} (list them in
 * {@code META-INF/services/dev.strata.lsm.policy.MergePolicyFactory}) and chosen by
 * {@link #name()} in XML: {@code <mergePolicy name="..."><param name="..." value="..."/></mergePolicy>}.
 */
public interface MergePolicyFactory {

    /**
     * The name users write in configuration, e.g. {@code binomial}. Unique among factories.
     *
     * @return the policy's unique configuration name
     */
    String name();

    /**
     * The artifact that provides the policy, e.g. {@code lsm-policies}; the default is the
     * name of the jar or directory the factory class was loaded from.
     *
     * @return the providing artifact's name, for listings
     */
    default String module() {
        try {
            java.security.CodeSource src = getClass().getProtectionDomain().getCodeSource();
            String path = src == null ? "" : src.getLocation().getPath();
            String last = path.replaceAll("/+$", "");
            last = last.substring(last.lastIndexOf('/') + 1);
            return last.isEmpty() ? "unknown" : last.replaceAll("\\.jar$", "");
        } catch (SecurityException e) {
            return "unknown";
        }
    }

    /**
     * One line saying what the policy does.
     *
     * @return a one-line description, for listings
     */
    String description();

    /**
     * The parameters the policy takes, with defaults and allowed ranges.
     *
     * @return the parameter specifications, in the order listings show them (empty for none)
     */
    List<PolicyParameter> parameters();

    /**
     * The merge threads the policy's design runs with, for tools that choose a thread count per
     * policy (the {@code design-space} bench runs each policy with this, else one); empty: no
     * preference. The engine itself runs {@code StoreConfig.backgroundThreads()} threads
     * (default {@code StoreConfig.DEFAULT_BACKGROUND_THREADS}) whatever the policy.
     *
     * @return the preferred number of merge threads, or empty for no preference
     */
    default OptionalInt mergeThreads() {
        return OptionalInt.empty();
    }

    /**
     * Checks the rules across the policy's parameters that {@link #parameters()} cannot state
     * one parameter at a time (one value at most another, a trigger that needs a value to
     * fire, ...). {@code StoreConfig.Builder.build()} calls it once, after resolving the values
     * and before anything is created, so a bad combination fails the configuration (and an XML
     * document, at its {@code <param>}) rather than the store's open or its first merge. The
     * default checks nothing: a policy without such rules need not override it.
     *
     * @param params values resolved against {@link #parameters()}
     * @throws PolicyParameterException naming the parameters of the rule {@code params} break
     */
    default void validate(PolicyParameters params) {
    }

    /**
     * A new policy instance.
     *
     * @param params values resolved against {@link #parameters()} that passed {@link #validate}
     * @return a new policy, not shared with any other caller
     */
    MergePolicy create(PolicyParameters params);
}
