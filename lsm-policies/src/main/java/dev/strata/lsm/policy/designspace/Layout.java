package dev.strata.lsm.policy.designspace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The data-layout primitive: which levels are leveled and which tiered. Strata's level 0
 * is the paper's level 1 (the paper counts the memtable as level 0). Immutable.
 */
public final class Layout {

    /** The named layouts. */
    public enum Kind {
        /** Every level leveled. */
        LEVELING("leveling"),
        /** Every level tiered. */
        TIERING("tiering"),
        /** Level 0 tiered, every other level leveled (RocksDB's default shape). */
        ONE_LEVELING("one-leveling"),
        /** The last level leveled, every other level tiered (Dostoevsky's lazy leveling). */
        L_LEVELING("l-leveling"),
        /** Each level as listed in {@code hybrid-levels}; levels past the list take its last entry. */
        HYBRID("hybrid");

        private final String xmlName;

        Kind(String xmlName) {
            this.xmlName = xmlName;
        }

        /**
         * The name used in XML.
         *
         * @return the value configurations write for this layout
         */
        public String xmlName() {
            return xmlName;
        }
    }

    private final Kind kind;
    private final List<LevelShape> perLevel;

    private Layout(Kind kind, List<LevelShape> perLevel) {
        this.kind = kind;
        this.perLevel = List.copyOf(perLevel);
    }

    /**
     * A layout of a kind other than {@link Kind#HYBRID}.
     *
     * @param kind the layout's kind
     * @return the layout
     * @throws IllegalArgumentException for {@link Kind#HYBRID}, which needs its per-level shapes
     */
    public static Layout of(Kind kind) {
        if (kind == Kind.HYBRID) {
            throw new IllegalArgumentException("a hybrid layout needs its per-level shapes");
        }
        return new Layout(kind, List.of());
    }

    /**
     * A hybrid layout from a list such as {@code "tiered,leveled"} (or {@code "T,L"}).
     *
     * @param perLevelShapes each level's shape, comma-separated; levels past the list take its last
     * @return the layout
     * @throws IllegalArgumentException naming the bad entry
     */
    public static Layout hybrid(String perLevelShapes) {
        return hybrid(List.of(perLevelShapes.split(",")));
    }

    /**
     * As {@link #hybrid(String)}, the shapes already split, one per level.
     *
     * @param perLevelShapes each level's shape ({@code tiered}, {@code leveled}, {@code T} or {@code L})
     * @return the layout
     * @throws IllegalArgumentException naming the bad entry, or for an empty list
     */
    public static Layout hybrid(List<String> perLevelShapes) {

        List<LevelShape> shapes = new ArrayList<>();
        for (String s : perLevelShapes) {
            String t = s.trim().toLowerCase(Locale.ROOT);
            if (t.isEmpty()) {
                continue;
            }
            shapes.add(switch (t) {
                case "t", "tiered", "tiering" -> LevelShape.TIERED;
                case "l", "leveled", "leveling" -> LevelShape.LEVELED;
                default -> throw new IllegalArgumentException("bad level shape '" + s.trim()
                        + "' in hybrid-levels: expected tiered or leveled (T or L)");
            });
        }
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("hybrid-levels must list at least one level shape, e.g. tiered,leveled");
        }
        return new Layout(Kind.HYBRID, shapes);
    }

    /**
     * Which named layout this is.
     *
     * @return the kind; {@link Kind#HYBRID} for a per-level list
     */
    public Kind kind() {
        return kind;
    }

    /** Whether some level of a tree with this layout is tiered (holds several runs). */
    boolean hasTiered() {
        return kind != Kind.LEVELING && (kind != Kind.HYBRID || perLevel.contains(LevelShape.TIERED));
    }

    /** Whether some level of a tree with this layout is leveled (holds one run). */
    boolean hasLeveled() {
        return kind != Kind.TIERING && (kind != Kind.HYBRID || perLevel.contains(LevelShape.LEVELED));
    }

    /** Whether some level below level 0 is leveled: where block compaction merges. */
    boolean hasLeveledBelowZero() {
        return kind != Kind.TIERING && (kind != Kind.HYBRID
                || perLevel.subList(Math.min(1, perLevel.size() - 1), perLevel.size()).contains(LevelShape.LEVELED));
    }

    /**
     * The shape of {@code level} in a tree whose deepest level is {@code lastLevel}.
     *
     * @param level     a level, 0 the newest
     * @param lastLevel the tree's deepest level
     * @return whether the level is leveled or tiered
     */
    public LevelShape shape(int level, int lastLevel) {
        return switch (kind) {
            case LEVELING -> LevelShape.LEVELED;
            case TIERING -> LevelShape.TIERED;
            case ONE_LEVELING -> level == 0 ? LevelShape.TIERED : LevelShape.LEVELED;
            case L_LEVELING -> level >= lastLevel && level > 0 ? LevelShape.LEVELED : LevelShape.TIERED;
            case HYBRID -> perLevel.get(Math.min(level, perLevel.size() - 1));
        };
    }

    @Override
    public String toString() {
        if (kind != Kind.HYBRID) {
            return kind.xmlName();
        }
        return "hybrid" + perLevel.stream().map(s -> s == LevelShape.LEVELED ? "L" : "T").toList();
    }
}
