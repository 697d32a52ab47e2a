package dev.strata.lsm.policy;

import java.util.Objects;

/**
 * Where new data lands in the tree: the output of a merge, or a flushed memtable.
 * Placements name runs by a component they contain rather than by index, so that a
 * decision stays meaningful while other merges finish first.
 *
 * @param level the level that receives the data
 * @param kind how the data joins that level
 * @param anchor for {@link Kind#INTO_RUN_OF}: a component of the receiving run; else null
 */
public record Placement(int level, Kind kind, ComponentId anchor) {

    /** How data joins its level. */
    public enum Kind {
        /** As a new run in front of the level's runs (the newest position of the level). */
        NEW_RUN_NEWEST,
        /** As a new run behind the level's runs (the oldest position of the level). */
        NEW_RUN_OLDEST,
        /** Into the existing run that holds {@code anchor} (kept even if all its components were inputs). */
        INTO_RUN_OF
    }

    /**
     * Creates a {@code Placement} from its components.
     *
     * @param level the level that receives the data
     * @param kind how the data joins that level
     * @param anchor for {@link Kind#INTO_RUN_OF}: a component of the receiving run; else null
     */
    public Placement {
        Objects.requireNonNull(kind, "kind");
        if (level < 0) {
            throw new IllegalArgumentException("level must be >= 0, got " + level);
        }
        if ((kind == Kind.INTO_RUN_OF) != (anchor != null)) {
            throw new IllegalArgumentException("an anchor component is required exactly for INTO_RUN_OF");
        }
    }

    /**
     * A new newest run at {@code level}.
     *
     * @param level the receiving level, 0 or more
     * @return a {@link Kind#NEW_RUN_NEWEST} placement
     */
    public static Placement newRun(int level) {
        return new Placement(level, Kind.NEW_RUN_NEWEST, null);
    }

    /**
     * A new oldest run at {@code level}.
     *
     * @param level the receiving level, 0 or more
     * @return a {@link Kind#NEW_RUN_OLDEST} placement
     */
    public static Placement newOldestRun(int level) {
        return new Placement(level, Kind.NEW_RUN_OLDEST, null);
    }

    /**
     * Into the run at {@code level} that holds {@code anchor}.
     *
     * @param level the receiving level, 0 or more
     * @param anchor a component of the receiving run (not null)
     * @return an {@link Kind#INTO_RUN_OF} placement
     */
    public static Placement intoRunOf(int level, ComponentId anchor) {
        return new Placement(level, Kind.INTO_RUN_OF, anchor);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case NEW_RUN_NEWEST -> "new newest run of L" + level;
            case NEW_RUN_OLDEST -> "new oldest run of L" + level;
            case INTO_RUN_OF -> "run of " + anchor + " in L" + level;
        };
    }
}
