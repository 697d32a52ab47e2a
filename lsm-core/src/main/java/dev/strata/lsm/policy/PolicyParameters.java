package dev.strata.lsm.policy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The validated, typed parameter values a policy is created with: every declared
 * parameter is present (given or defaulted) and nothing undeclared is. Immutable.
 */
public final class PolicyParameters {
    private final Map<String, Object> values;

    private PolicyParameters(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /**
     * Resolves raw string values against the declared parameters.
     *
     * @param policyName the policy's name, for messages
     * @param declared the parameters the policy declares
     * @param raw the values as configured, name to unparsed text
     * @return every declared parameter's value, parsed, defaults filled in
     * @throws IllegalArgumentException for an unknown name (listing the known ones) or a bad value
     */
    public static PolicyParameters resolve(String policyName, List<PolicyParameter> declared, Map<String, String> raw) {
        return resolve("merge policy", policyName, declared, raw);
    }

    /**
     * Resolves raw string values against the declared parameters of anything configured by
     * name and parameters, e.g. a storage IO implementation.
     *
     * @param kind  what messages call the owner, e.g. {@code "storage IO"}
     * @param owner the owner's name
     * @param declared the parameters the owner declares
     * @param raw the values as configured, name to unparsed text
     * @return every declared parameter's value, parsed, defaults filled in
     * @throws IllegalArgumentException for an unknown name (listing the known ones) or a bad value
     */
    public static PolicyParameters resolve(String kind, String owner, List<PolicyParameter> declared,
                                           Map<String, String> raw) {
        Map<String, PolicyParameter> byName = new LinkedHashMap<>();
        for (PolicyParameter p : declared) {
            byName.put(p.name(), p);
        }
        for (String name : raw.keySet()) {
            if (!byName.containsKey(name)) {
                throw new IllegalArgumentException("unknown parameter '" + name + "' for " + kind + " '" + owner
                        + "'; " + (byName.isEmpty() ? "it takes no parameters"
                        : "allowed: " + String.join(", ", byName.keySet())));
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (PolicyParameter p : declared) {
            String given = raw.get(p.name());
            values.put(p.name(), given == null ? p.defaultValue() : p.parse(given));
        }
        return new PolicyParameters(values);
    }

    /**
     * Raw values written on one line, {@code NAME=VALUE} pairs separated by {@code separator}
     * (a command line's {@code fanout=4,k=6}), in the order given; names and values trimmed.
     * Only splits: {@link #resolve} parses and checks the values.
     *
     * @param line the text to split; null or blank gives an empty map
     * @param separator the character between pairs
     * @return a new map of name to unparsed value, in the order given
     * @throws IllegalArgumentException naming a pair without a name or value, or a name given twice
     */
    public static Map<String, String> parseAssignments(String line, char separator) {
        Map<String, String> raw = new LinkedHashMap<>();
        if (line == null || line.isBlank()) {
            return raw;
        }
        for (String pair : line.split(java.util.regex.Pattern.quote(String.valueOf(separator)), -1)) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? "" : pair.substring(0, eq).trim();
            String value = eq < 0 ? "" : pair.substring(eq + 1).trim();
            if (name.isEmpty() || value.isEmpty()) {
                throw new IllegalArgumentException("bad parameter '" + pair + "' in '" + line + "': expected NAME=VALUE"
                        + " pairs separated by '" + separator + "'");
            }
            if (raw.put(name, value) != null) {
                throw new IllegalArgumentException("parameter '" + name + "' is given twice in '" + line + "'");
            }
        }
        return raw;
    }

    /**
     * All values by name, in declaration order.
     *
     * @return an unmodifiable map of name to typed value
     */
    public Map<String, Object> asMap() {
        return values;
    }

    /**
     * The value of the {@code INT} parameter {@code name}.
     *
     * @param name a declared parameter's name
     * @return its value
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public int getInt(String name) {
        return ((Number) require(name)).intValue();
    }

    /**
     * The value of the {@code BYTES} or {@code DURATION} (milliseconds) parameter {@code name}.
     *
     * @param name a declared parameter's name
     * @return its value, in bytes or milliseconds
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public long getLong(String name) {
        return ((Number) require(name)).longValue();
    }

    /**
     * The value of the {@code DOUBLE} parameter {@code name}.
     *
     * @param name a declared parameter's name
     * @return its value
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public double getDouble(String name) {
        return ((Number) require(name)).doubleValue();
    }

    /**
     * A {@link PolicyParameter.Type#CHOICE} value.
     *
     * @param name a declared parameter's name
     * @return the chosen value
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public String getString(String name) {
        return (String) require(name);
    }

    /**
     * The value of the {@code BOOLEAN} parameter {@code name}.
     *
     * @param name a declared parameter's name
     * @return its value
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public boolean getBoolean(String name) {
        return (Boolean) require(name);
    }

    /**
     * A {@link PolicyParameter.Type#CHOICE_LIST} or {@link PolicyParameter.Type#PER_LEVEL_CHOICE}
     * value.
     *
     * @param name a declared parameter's name
     * @return the values, in the order given (one per level for a per-level choice)
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public List<String> getStrings(String name) {
        return ((List<?>) require(name)).stream().map(String.class::cast).toList();
    }

    /**
     * A {@link PolicyParameter.Type#PER_LEVEL_DOUBLE} value, one number per level.
     *
     * @param name a declared parameter's name
     * @return the numbers, level 0 first (see {@link PolicyParameter#perLevel})
     * @throws IllegalArgumentException if no parameter is called {@code name}
     */
    public List<Double> getDoubles(String name) {
        return ((List<?>) require(name)).stream().map(v -> ((Number) v).doubleValue()).toList();
    }

    private Object require(String name) {
        Object v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no parameter '" + name + "' (known: " + values.keySet() + ")");
        }
        return v;
    }

    @Override
    public String toString() {
        return values.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
    }
}
