package dev.strata.lsm.bench.torture;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * A merge policy and parameters for one torture epoch. {@link #random} picks among the
 * registered policies with parameters drawn from small, valid sets chosen to make merges
 * frequent on a small store; a policy this class does not know runs with its defaults.
 *
 * @param name the registered policy name
 * @param params raw parameter values
 */
public record PolicyChoice(String name, Map<String, String> params) {

    public PolicyChoice {
        params = Map.copyOf(params);
    }

    /** Every registered policy name, sorted. */
    public static List<String> registered() {
        return MergePolicies.names();
    }

    /**
     * A random policy with random valid parameters; {@code only} (if not null) fixes the
     * name and only the parameters vary.
     */
    public static PolicyChoice random(SplittableRandom r, String only) {
        List<String> names = registered();
        String name = only != null ? only : names.get(r.nextInt(names.size()));
        for (int attempt = 0; attempt < 20; attempt++) {
            PolicyChoice c = new PolicyChoice(name, randomParams(r, name));
            if (c.valid()) {
                return c;
            }
        }
        return new PolicyChoice(name, Map.of());
    }

    private boolean valid() {
        try {
            StoreConfig.builder().mergePolicy(name, params).build();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Map<String, String> randomParams(SplittableRandom r, String name) {
        Map<String, String> p = new LinkedHashMap<>();
        switch (name) {
            case "size-tiered" -> {
                p.put("fanout", pick(r, "2", "3", "4", "6"));
                p.put("size-ratio", pick(r, "1.5", "2.0", "4.0"));
                p.put("max-runs", pick(r, "8", "12", "24"));
            }
            case "constant", "bigtable", "minlatency", "binomial" -> p.put("k", pick(r, "2", "3", "4", "5", "6", "8"));
            case "exploring" -> {
                p.put("k", pick(r, "3", "4", "5", "6"));
                p.put("lambda", pick(r, "1.2", "2.0", "5.0"));
                p.put("min-components", pick(r, "2", "3"));
                p.put("max-components", pick(r, "4", "6", "10"));
            }
            case "prefix" -> {
                p.put("max-mergable-component-size", pick(r, "256KiB", "1MiB", "4MiB", "1GiB"));
                p.put("max-tolerance-component-count", pick(r, "3", "5", "8"));
            }
            case "concurrent" -> {
                p.put("min-merge-count", pick(r, "2", "3"));
                p.put("max-merge-count", pick(r, "4", "10"));
                p.put("max-component-count", pick(r, "12", "30"));
                p.put("size-ratio", pick(r, "1.2", "2.0"));
            }
            default -> {
                // Unknown to the torture: its defaults.
            }
        }
        return p;
    }

    private static String pick(SplittableRandom r, String... choices) {
        return choices[r.nextInt(choices.length)];
    }

    /** Command-line form of the parameters: {@code k=v,k=v}. */
    public String paramList() {
        return paramList(params);
    }

    /** Command-line form of {@code params}: {@code k=v,k=v}, sorted, as {@link #parseParams} reads it. */
    static String paramList(Map<String, String> params) {
        return params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted()
                .collect(Collectors.joining(","));
    }

    /** Parses {@link #paramList()} ({@link PolicyParameters#parseAssignments}). */
    public static Map<String, String> parseParams(String list) {
        return PolicyParameters.parseAssignments(list, ',');
    }

    @Override
    public String toString() {
        return params.isEmpty() ? name : name + "{" + paramList() + "}";
    }
}
