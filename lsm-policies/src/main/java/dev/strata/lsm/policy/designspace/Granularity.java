package dev.strata.lsm.policy.designspace;

/** How much data one compaction takes from its source level (seed 003's granularity primitive). */
public enum Granularity {
    /** Every file of the source level together with every file of the next level. */
    WHOLE_LEVEL("whole-level"),
    /** Every sorted run of the source level (tiered levels). */
    SORTED_RUNS("sorted-runs"),
    /** One file of the source level, chosen by the data-movement rule, with what it overlaps below. */
    ONE_FILE("one-file"),
    /** The chosen file and its key-order successors, {@code files-per-merge} files in all. */
    SEVERAL_FILES("several-files");

    private final String xmlName;

    Granularity(String xmlName) {
        this.xmlName = xmlName;
    }

    /**
     * The name used in XML.
     *
     * @return the value configurations write for this constant
     */
    public String xmlName() {

        return xmlName;
    }
}
