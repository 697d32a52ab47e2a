package dev.strata.lsm.policy.designspace;

import java.util.Locale;

/**
 * The compaction triggers of the design-space paper (seed 003, section 4.1 of FAMILIES.md),
 * checked in the priority order a configuration lists them.
 */
public enum TriggerKind {
    /** A leveled level holds at least its capacity (score = bytes / capacity >= 1; highest score first). */
    SATURATION("saturation"),
    /** A tiered level holds at least {@code level1-run-trigger} sorted runs. */
    RUNS("runs"),
    /** A file has lived at its level longer than {@code file-ttl}. */
    STALENESS("staleness"),
    /** Bytes above the last level exceed {@code max-size-amplification-percent} of it: merge everything down. */
    SPACE_AMPLIFICATION("space-amp"),
    /** A file's tombstones per entry reach {@code tombstone-density}. */
    TOMBSTONE_DENSITY("tombstone-density"),
    /** A file's oldest tombstone has outlived its level's share of {@code tombstone-ttl}. */
    TOMBSTONE_TTL("tombstone-ttl");

    private final String xmlName;

    TriggerKind(String xmlName) {
        this.xmlName = xmlName;
    }

    /**
     * The name used in XML ({@code triggers} parameter, comma-separated).
     *
     * @return the value configurations write for this trigger
     */
    public String xmlName() {
        return xmlName;
    }

    /**
     * The trigger called {@code name}.
     *
     * @param name a trigger's XML name, in any case, surrounding blanks ignored
     * @return the trigger
     * @throws IllegalArgumentException naming the unknown trigger and the known ones
     */
    public static TriggerKind parse(String name) {

        String n = name.trim().toLowerCase(Locale.ROOT);
        for (TriggerKind t : values()) {
            if (t.xmlName.equals(n)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown trigger '" + name + "'; known: saturation, runs, staleness, "
                + "space-amp, tombstone-density, tombstone-ttl");
    }
}
