package dev.strata.lsm.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The registry of merge policies visible to a class loader, found with {@link ServiceLoader}. */
public final class MergePolicies {
    private MergePolicies() {
    }

    /**
     * Every policy factory on the class path, sorted by name.
     *
     * @return a new list of each registered factory, sorted by {@link MergePolicyFactory#name()}
     */
    public static List<MergePolicyFactory> available() {
        List<MergePolicyFactory> all = new ArrayList<>();
        for (MergePolicyFactory f : ServiceLoader.load(MergePolicyFactory.class, MergePolicies.class.getClassLoader())) {
            all.add(f);
        }
        if (Thread.currentThread().getContextClassLoader() != null
                && Thread.currentThread().getContextClassLoader() != MergePolicies.class.getClassLoader()) {
            for (MergePolicyFactory f : ServiceLoader.load(MergePolicyFactory.class)) {
                if (all.stream().noneMatch(g -> g.name().equals(f.name()))) {
                    all.add(f);
                }
            }
        }
        all.sort(Comparator.comparing(MergePolicyFactory::name));
        return all;
    }

    /**
     * Names of every available policy.
     *
     * @return the names of the available policies, sorted
     */
    public static List<String> names() {
        return available().stream().map(MergePolicyFactory::name).toList();
    }

    /**
     * The factory called {@code name}.
     *
     * @param name the policy's configuration name
     * @return the registered factory with that name
     * @throws IllegalArgumentException naming the unknown policy and listing the known ones
     */
    public static MergePolicyFactory find(String name) {
        for (MergePolicyFactory f : available()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown merge policy '" + name + "'; available: "
                + String.join(", ", names()));
    }

    /**
     * Validates {@code rawParams} for policy {@code name} and creates it.
     *
     * @param name the policy's configuration name
     * @param rawParams the parameters as configured, name to unparsed value (absent ones take their
     *     defaults)
     *
     * @return a new policy instance
     * @throws IllegalArgumentException for an unknown policy or parameter, or a bad value
     */
    public static MergePolicy create(String name, Map<String, String> rawParams) {
        MergePolicyFactory f = find(name);
        return f.create(PolicyParameters.resolve(name, f.parameters(), rawParams));
    }
}
