package dev.strata.lsm.policy.designspace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parameters of the {@code design-space} policy, their defaults, and the ten strategies
 * of seed 003 (Table 2) as nothing but parameter values over the four primitives (check DS1).
 * Each preset is registered under its own name and any of its values can still be
 * overridden in XML.
 */
public final class DesignSpacePresets {
    private DesignSpacePresets() {
    }

    /** Parameter names, in documentation order. */
    public static final String TRIGGERS = "triggers";
    public static final String LAYOUT = "layout";
    public static final String HYBRID_LEVELS = "hybrid-levels";
    public static final String GRANULARITY = "granularity";
    public static final String DATA_MOVEMENT = "data-movement";
    public static final String FILES_PER_MERGE = "files-per-merge";
    public static final String SIZE_RATIO = "size-ratio";
    public static final String TARGET_FILE_BYTES = "target-file-bytes";
    public static final String LEVEL1_RUN_TRIGGER = "level1-run-trigger";
    public static final String TOMBSTONE_DENSITY = "tombstone-density";
    public static final String TOMBSTONE_TTL = "tombstone-ttl";
    public static final String FILE_TTL = "file-ttl";
    public static final String MAX_SIZE_AMP = "max-size-amplification-percent";
    public static final String SIZE_RATIO_PERCENT = "size-ratio-percent";
    public static final String MIN_MERGE_WIDTH = "min-merge-width";
    public static final String DYNAMIC_LEVEL_BYTES = "dynamic-level-bytes";
    public static final String LEVEL0_STOP_RUNS = "level0-stop-runs";
    public static final String BLOCK_COMPACTION = "block-compaction";
    public static final String MAX_DIRTY_RATIO = "max-dirty-ratio";
    public static final String MIN_VALID_RATIO = "min-valid-ratio";
    public static final String LAST_LEVEL_MAX_DIRTY_RATIO = "last-level-max-dirty-ratio";
    public static final String LAST_LEVEL_MIN_VALID_RATIO = "last-level-min-valid-ratio";
    public static final String MAX_FILE_FACTOR = "max-file-factor";
    public static final String LEVEL1_BYTES = "level1-bytes";

    private static final Map<String, String> DEFAULTS = ordered(
            TRIGGERS, "saturation",
            LAYOUT, "leveling",
            HYBRID_LEVELS, "tiered,leveled",
            GRANULARITY, "one-file",
            DATA_MOVEMENT, "least-overlap-parent",
            FILES_PER_MERGE, "2",
            SIZE_RATIO, "10",
            TARGET_FILE_BYTES, "0",
            LEVEL1_RUN_TRIGGER, "4",
            TOMBSTONE_DENSITY, "0.1",
            TOMBSTONE_TTL, "10m",
            FILE_TTL, "0",
            MAX_SIZE_AMP, "200",
            SIZE_RATIO_PERCENT, "1",
            MIN_MERGE_WIDTH, "2",
            DYNAMIC_LEVEL_BYTES, "true",
            LEVEL0_STOP_RUNS, "20",
            BLOCK_COMPACTION, "false",
            MAX_DIRTY_RATIO, "0.5",
            // FAMILIES.md 2.3 proposes 0.5; at 0.5 the peak space of uniform updates was 1.34-1.42x
            // table-only (BL5: at most 1.25x), at 0.7 1.16-1.20x with WA still 0.83-0.88x (docs/benchmarks.md).
            MIN_VALID_RATIO, "0.7",
            LAST_LEVEL_MAX_DIRTY_RATIO, "0.2",
            LAST_LEVEL_MIN_VALID_RATIO, "0.8",
            MAX_FILE_FACTOR, "4",
            LEVEL1_BYTES, "0");

    private static final Map<String, Map<String, String>> PRESETS = new LinkedHashMap<>();

    static {
        PRESETS.put("full", ordered(GRANULARITY, "whole-level"));
        PRESETS.put("lo1", ordered());
        PRESETS.put("lo2", ordered(DATA_MOVEMENT, "least-overlap-grandparent"));
        PRESETS.put("rr", ordered(DATA_MOVEMENT, "round-robin"));
        PRESETS.put("cold", ordered(DATA_MOVEMENT, "coldest"));
        PRESETS.put("old", ordered(DATA_MOVEMENT, "oldest"));
        PRESETS.put("tsd", ordered(TRIGGERS, "tombstone-density,saturation"));
        PRESETS.put("tsa", ordered(TRIGGERS, "tombstone-ttl,saturation"));
        PRESETS.put("tier", ordered(TRIGGERS, "runs,space-amp", LAYOUT, "tiering", GRANULARITY, "sorted-runs",
                DYNAMIC_LEVEL_BYTES, "false"));
        PRESETS.put("one-leveling", ordered(TRIGGERS, "runs,saturation", LAYOUT, "one-leveling"));
        // Seed 001 (BlockDB): LevelDB's tree and picker (rr) with selective block compaction.
        PRESETS.put("blockdb", ordered(DATA_MOVEMENT, "round-robin", BLOCK_COMPACTION, "true"));
    }

    /** The preset names of seed 003, in the paper's Table 2 order. */
    public static List<String> presetNames() {
        return List.copyOf(PRESETS.keySet()).subList(0, 10);
    }

    /** Every registered preset: seed 003's ten and {@code blockdb} (seed 001 on {@code rr}). */
    public static List<String> allPresetNames() {
        return List.copyOf(PRESETS.keySet());
    }

    /** The full parameter values of {@code preset} ({@code design-space} for the plain defaults). */
    public static Map<String, String> values(String preset) {
        Map<String, String> v = new LinkedHashMap<>(DEFAULTS);
        if (!preset.equals("design-space")) {
            Map<String, String> p = PRESETS.get(preset);
            if (p == null) {
                throw new IllegalArgumentException("unknown design-space preset '" + preset + "'; known: "
                        + String.join(", ", PRESETS.keySet()));
            }
            v.putAll(p);
        }
        return Collections.unmodifiableMap(v);
    }

    /** The values a preset sets beyond the defaults (what makes it that strategy). */
    public static Map<String, String> overrides(String preset) {
        return preset.equals("design-space") ? Map.of() : Collections.unmodifiableMap(PRESETS.get(preset));
    }

    /**
     * The configuration for {@code preset} with {@code given} values overriding.
     *
     * @throws IllegalArgumentException naming the parameter and the bad value
     */
    public static DesignSpaceConfig config(String preset, Map<String, String> given) {
        Map<String, String> v = new LinkedHashMap<>(values(preset));
        for (Map.Entry<String, String> e : given.entrySet()) {
            if (!v.containsKey(e.getKey())) {
                throw new IllegalArgumentException("unknown parameter '" + e.getKey() + "' for merge policy '" + preset
                        + "'; allowed: " + String.join(", ", v.keySet()));
            }
            v.put(e.getKey(), e.getValue());
        }
        List<TriggerKind> triggers = new ArrayList<>();
        for (String t : v.get(TRIGGERS).split(",")) {
            if (!t.isBlank()) {
                TriggerKind k = parse(TRIGGERS, t, TriggerKind::parse);
                if (triggers.contains(k)) {
                    throw new IllegalArgumentException("parameter 'triggers' lists '" + t.trim() + "' twice");
                }
                triggers.add(k);
            }
        }
        if (triggers.isEmpty()) {
            throw new IllegalArgumentException("parameter 'triggers' must name at least one trigger");
        }
        Layout.Kind kind = choice(LAYOUT, v.get(LAYOUT), Layout.Kind.values(), Layout.Kind::xmlName);
        Layout layout = kind == Layout.Kind.HYBRID ? parse(HYBRID_LEVELS, v.get(HYBRID_LEVELS), Layout::hybrid)
                : Layout.of(kind);
        try {
            return new DesignSpaceConfig(triggers, layout,
                    choice(GRANULARITY, v.get(GRANULARITY), Granularity.values(), Granularity::xmlName),
                    choice(DATA_MOVEMENT, v.get(DATA_MOVEMENT), DataMovement.values(), DataMovement::xmlName),
                    intIn(v, FILES_PER_MERGE, 1, 1000), intIn(v, SIZE_RATIO, 2, 1000),
                    parse(TARGET_FILE_BYTES, v.get(TARGET_FILE_BYTES), dev.strata.lsm.policy.PolicyParameter::parseBytes),
                    intIn(v, LEVEL1_RUN_TRIGGER, 2, 1000), doubleIn(v, TOMBSTONE_DENSITY, 0.0, 1.0),
                    parse(TOMBSTONE_TTL, v.get(TOMBSTONE_TTL), dev.strata.lsm.policy.PolicyParameter::parseDuration),
                    parse(FILE_TTL, v.get(FILE_TTL), dev.strata.lsm.policy.PolicyParameter::parseDuration),
                    intIn(v, MAX_SIZE_AMP, 1, 1_000_000), intIn(v, SIZE_RATIO_PERCENT, 0, 1000),
                    intIn(v, MIN_MERGE_WIDTH, 2, 1000), bool(v, DYNAMIC_LEVEL_BYTES),
                    intIn(v, LEVEL0_STOP_RUNS, 2, 10_000), bool(v, BLOCK_COMPACTION),
                    ratios(v, MAX_DIRTY_RATIO), ratios(v, MIN_VALID_RATIO), doubleIn(v, LAST_LEVEL_MAX_DIRTY_RATIO, 0, 1),
                    doubleIn(v, LAST_LEVEL_MIN_VALID_RATIO, 0, 1), doubleIn(v, MAX_FILE_FACTOR, 1, 1_000_000),
                    parse(LEVEL1_BYTES, v.get(LEVEL1_BYTES), dev.strata.lsm.policy.PolicyParameter::parseBytes));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("merge policy '" + preset + "': " + e.getMessage(), e);
        }
    }

    private interface Parser<T> {
        T parse(String s);
    }

    private static <T> T parse(String name, String raw, Parser<T> parser) {
        try {
            return parser.parse(raw);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad value \"" + raw + "\" for parameter '" + name + "': "
                    + e.getMessage());
        }
    }

    private static <E> E choice(String name, String raw, E[] values, java.util.function.Function<E, String> xml) {
        List<String> names = new ArrayList<>();
        for (E e : values) {
            if (xml.apply(e).equals(raw.trim())) {
                return e;
            }
            names.add(xml.apply(e));
        }
        throw new IllegalArgumentException("bad value \"" + raw + "\" for parameter '" + name + "': expected one of "
                + String.join(", ", names));
    }

    private static int intIn(Map<String, String> v, String name, int min, int max) {
        int x = parse(name, v.get(name), Integer::parseInt);
        if (x < min || x > max) {
            throw new IllegalArgumentException("bad value \"" + v.get(name) + "\" for parameter '" + name
                    + "': expected an integer from " + min + " to " + max);
        }
        return x;
    }

    private static double doubleIn(Map<String, String> v, String name, double min, double max) {
        double x = parse(name, v.get(name), Double::parseDouble);
        if (!(x >= min && x <= max)) {
            throw new IllegalArgumentException("bad value \"" + v.get(name) + "\" for parameter '" + name
                    + "': expected a number from " + min + " to " + max);
        }
        return x;
    }

    private static List<Double> ratios(Map<String, String> v, String name) {
        List<Double> out = new ArrayList<>();
        for (String part : v.get(name).split(",", -1)) {
            double x = parse(name, part.trim(), Double::parseDouble);
            if (!(x >= 0 && x <= 1)) {
                throw new IllegalArgumentException("bad value \"" + v.get(name) + "\" for parameter '" + name
                        + "': expected numbers from 0 to 1, one per level");
            }
            out.add(x);
        }
        return out;
    }

    private static boolean bool(Map<String, String> v, String name) {
        String s = v.get(name).trim();
        if (!s.equals("true") && !s.equals("false")) {
            throw new IllegalArgumentException("bad value \"" + s + "\" for parameter '" + name
                    + "': expected true or false");
        }
        return Boolean.parseBoolean(s);
    }

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
