package dev.strata.lsm.policy.sim;

/** How the simulator counts bytes written. */
public enum Semantics {
    /**
     * The paper's cost model: a merge that includes the flushed memtable writes its output
     * once, so WA = sum of the lengths of components created / sum of flush lengths.
     */
    MODEL("model"),
    /** The engine's: the flushed table is written, then merged (its bytes are written twice). */
    FLUSH_THEN_MERGE("flush-then-merge");

    private final String label;

    Semantics(String label) {
        this.label = label;
    }

    /**
     * The name used on the command line and in JSON.
     *
     * @return the label
     */
    public String label() {
        return label;
    }

    /**
     * Parses {@code model} or {@code flush-then-merge}.
     *
     * @param s a label
     * @return the semantics it names
     * @throws IllegalArgumentException naming the bad label and the allowed ones
     */
    public static Semantics parse(String s) {

        for (Semantics x : values()) {
            if (x.label.equals(s)) {
                return x;
            }
        }
        throw new IllegalArgumentException("bad semantics '" + s + "': expected model or flush-then-merge");
    }
}
