package dev.strata.lsm.version;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The merge policy a store's manifest records (docs/format.md, "Manifest", format 3): its
 * registered name and its parameters as configured (raw values, sorted by name). A store
 * opened with a configuration that names no policy runs the one its manifest records; see
 * docs/policies.md, "The default policy and what a store records".
 *
 * <p>Immutable and thread safe.
 *
 * @param name the policy's registered name (not blank)
 * @param params the policy's parameters, name to unparsed value, sorted by name (absent ones take
 *     their defaults)
 */
public record PolicyRecord(String name, SortedMap<String, String> params) {
    /** Longest name or parameter string the record holds: what {@code DataOutputStream.writeUTF} can. */
    static final int MAX_STRING_BYTES = 65_535;

    public PolicyRecord {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a recorded merge policy needs a name");
        }
        params = Collections.unmodifiableSortedMap(new TreeMap<>(params == null ? Map.of() : params));
    }

    /**
     * The record of policy {@code name} with {@code params}.
     *
     * @param name the policy's registered name
     * @param params its raw parameters (null: none)
     * @return the record, parameters sorted by name
     */
    public static PolicyRecord of(String name, Map<String, String> params) {
        return new PolicyRecord(name, params == null ? null : new TreeMap<>(params));
    }

    @Override
    public String toString() {
        return params.isEmpty() ? name : name + " " + params;
    }
}
