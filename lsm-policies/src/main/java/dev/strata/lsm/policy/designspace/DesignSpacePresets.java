package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameterException;
import dev.strata.lsm.policy.PolicyParameters;

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

    // Parameter names, in documentation order; each parameter's meaning is its description in
    // parameters() and its row in docs/policies.md.

    /** Parameter name: the compaction triggers, in priority order. */
    public static final String TRIGGERS = "triggers";
    /** Parameter name: the data layout. */
    public static final String LAYOUT = "layout";
    /** Parameter name: each level's shape for the hybrid layout. */
    public static final String HYBRID_LEVELS = "hybrid-levels";
    /** Parameter name: how much one compaction takes. */
    public static final String GRANULARITY = "granularity";
    /** Parameter name: which file a partial compaction takes. */
    public static final String DATA_MOVEMENT = "data-movement";
    /** Parameter name: the files the several-files granularity takes. */
    public static final String FILES_PER_MERGE = "files-per-merge";
    /** Parameter name: T, the size ratio between levels. */
    public static final String SIZE_RATIO = "size-ratio";
    /** Parameter name: the output file size. */
    public static final String TARGET_FILE_BYTES = "target-file-bytes";
    /** Parameter name: the sorted runs that make a tiered level compact. */
    public static final String LEVEL1_RUN_TRIGGER = "level1-run-trigger";
    /** Parameter name: the tombstone density that triggers tombstone-density. */
    public static final String TOMBSTONE_DENSITY = "tombstone-density";
    /** Parameter name: D_th, the tombstone persistence deadline. */
    public static final String TOMBSTONE_TTL = "tombstone-ttl";
    /** Parameter name: the age at which a file is stale. */
    public static final String FILE_TTL = "file-ttl";
    /** Parameter name: the space-amplification trigger, in percent. */
    public static final String MAX_SIZE_AMP = "max-size-amplification-percent";
    /** Parameter name: universal compaction's size-ratio rule, in percent. */
    public static final String SIZE_RATIO_PERCENT = "size-ratio-percent";
    /** Parameter name: the fewest runs a size-ratio merge takes. */
    public static final String MIN_MERGE_WIDTH = "min-merge-width";
    /** Parameter name: level capacities derived from the last level. */
    public static final String DYNAMIC_LEVEL_BYTES = "dynamic-level-bytes";
    /** Parameter name: the level-0 runs at which writers stop while a merge runs. */
    public static final String LEVEL0_STOP_RUNS = "level0-stop-runs";
    /** Parameter name: the level-0 runs from which writers are slowed down while a merge runs. */
    public static final String LEVEL0_SLOWDOWN_RUNS = "level0-slowdown-runs";
    /** Parameter name: block compaction (seed 001) on or off. */
    public static final String BLOCK_COMPACTION = "block-compaction";
    /** Parameter name: block compaction's dirty-ratio threshold, per level. */
    public static final String MAX_DIRTY_RATIO = "max-dirty-ratio";
    /** Parameter name: block compaction's valid-ratio threshold, per level. */
    public static final String MIN_VALID_RATIO = "min-valid-ratio";
    /** Parameter name: the dirty-ratio threshold of the last level. */
    public static final String LAST_LEVEL_MAX_DIRTY_RATIO = "last-level-max-dirty-ratio";
    /** Parameter name: the valid-ratio threshold of the last level. */
    public static final String LAST_LEVEL_MIN_VALID_RATIO = "last-level-min-valid-ratio";
    /** Parameter name: the valid size, in target files, above which a child table is split. */
    public static final String MAX_FILE_FACTOR = "max-file-factor";
    /** Parameter name: the static capacity of level 1. */
    public static final String LEVEL1_BYTES = "level1-bytes";
    /** Parameter: fraction of the target file after which outputs are also cut at next-level boundaries (0 = off). */
    public static final String ALIGN_OUTPUTS = "align-outputs";

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
            LEVEL0_SLOWDOWN_RUNS, "0",
            BLOCK_COMPACTION, "false",
            MAX_DIRTY_RATIO, "0.5",
            // FAMILIES.md 2.3 proposes 0.5; at 0.5 the peak space of uniform updates was 1.34-1.42x
            // table-only (BL5: at most 1.25x), at 0.7 1.16-1.20x with WA still 0.83-0.88x (docs/benchmarks.md).
            MIN_VALID_RATIO, "0.7",
            LAST_LEVEL_MAX_DIRTY_RATIO, "0.2",
            LAST_LEVEL_MIN_VALID_RATIO, "0.8",
            MAX_FILE_FACTOR, "4",
            LEVEL1_BYTES, "0",
            ALIGN_OUTPUTS, "0");

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

    /**
     * The preset names of seed 003, in the paper's Table 2 order.
     *
     * @return the ten names
     */
    public static List<String> presetNames() {
        return List.copyOf(PRESETS.keySet()).subList(0, 10);
    }

    /**
     * Every registered preset: seed 003's ten and {@code blockdb} (seed 001 on {@code rr}).
     *
     * @return the eleven names, seed 003's first
     */
    public static List<String> allPresetNames() {
        return List.copyOf(PRESETS.keySet());
    }

    /**
     * The full parameter values of {@code preset} ({@code design-space} for the plain defaults).
     *
     * @param preset a preset's name, or {@code design-space}
     * @return every parameter's raw value, in documentation order (unmodifiable)
     * @throws IllegalArgumentException for an unknown preset, listing the known ones
     */
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

    /**
     * The values a preset sets beyond the defaults (what makes it that strategy).
     *
     * @param preset a preset's name, or {@code design-space} (which overrides nothing)
     * @return the raw values it sets (unmodifiable)
     */
    public static Map<String, String> overrides(String preset) {
        return preset.equals("design-space") ? Map.of() : Collections.unmodifiableMap(PRESETS.get(preset));
    }

    /**
     * The declared parameters of {@code preset}: every parameter's type and range (here only)
     * with the preset's value as its default ({@link #values}). Raw values are parsed and
     * checked against these once, by {@link PolicyParameters#resolve}; {@link #config(String,
     * PolicyParameters)} then reads the typed values.
     *
     * @param preset a preset's name, or {@code design-space}
     * @return the declared parameters, in documentation order
     * @throws IllegalArgumentException for an unknown preset
     */
    public static List<PolicyParameter> parameters(String preset) {
        Map<String, String> d = values(preset);
        List<PolicyParameter> ps = new ArrayList<>();
        ps.add(PolicyParameter.ofChoiceList(TRIGGERS, d.get(TRIGGERS), names(TriggerKind.values(), TriggerKind::xmlName),
                "compaction triggers in priority order (seed 003)"));
        ps.add(PolicyParameter.ofChoice(LAYOUT, d.get(LAYOUT), names(Layout.Kind.values(), Layout.Kind::xmlName),
                "data layout (seed 003)"));
        ps.add(PolicyParameter.ofPerLevelChoice(HYBRID_LEVELS, d.get(HYBRID_LEVELS), List.of("tiered", "leveled", "T", "L"),
                "for layout=hybrid: each level's shape, the last repeated (not in the paper)"));
        ps.add(PolicyParameter.ofChoice(GRANULARITY, d.get(GRANULARITY), names(Granularity.values(), Granularity::xmlName),
                "how much one compaction takes (seed 003)"));
        ps.add(PolicyParameter.ofChoice(DATA_MOVEMENT, d.get(DATA_MOVEMENT),
                names(DataMovement.values(), DataMovement::xmlName), "which file a partial compaction takes (seed 003)"));
        ps.add(PolicyParameter.ofInt(FILES_PER_MERGE, intOf(d, FILES_PER_MERGE), 1, 1000,
                "files several-files takes (not in the paper)"));
        ps.add(PolicyParameter.ofInt(SIZE_RATIO, intOf(d, SIZE_RATIO), 2, 1000,
                "T, the size ratio between levels (seed 003: 10)"));
        ps.add(PolicyParameter.ofBytes(TARGET_FILE_BYTES, PolicyParameter.parseBytes(d.get(TARGET_FILE_BYTES)), 0,
                Long.MAX_VALUE, "output file size; 0 = the store's memtable size (not in the paper)"));
        ps.add(PolicyParameter.ofInt(LEVEL1_RUN_TRIGGER, intOf(d, LEVEL1_RUN_TRIGGER), 2, 1000,
                "sorted runs that make a tiered level compact (RocksDB's level0 trigger; not in the paper)"));
        ps.add(PolicyParameter.ofDouble(TOMBSTONE_DENSITY, Double.parseDouble(d.get(TOMBSTONE_DENSITY)), 0.0, 1.0,
                "tombstones per entry that trigger tombstone-density (not in the paper)"));
        ps.add(PolicyParameter.ofDuration(TOMBSTONE_TTL, d.get(TOMBSTONE_TTL),
                "D_th: a tombstone reaches the last level within this (Lethe's per-level split; value not in the "
                        + "paper)"));
        ps.add(PolicyParameter.ofDuration(FILE_TTL, d.get(FILE_TTL),
                "a file older than this moves down (staleness trigger; 0 = never; not in the paper)"));
        ps.add(PolicyParameter.ofInt(MAX_SIZE_AMP, intOf(d, MAX_SIZE_AMP), 1, 1_000_000,
                "space-amp trigger: bytes above the oldest run / that run, in percent (RocksDB universal)"));
        ps.add(PolicyParameter.ofInt(SIZE_RATIO_PERCENT, intOf(d, SIZE_RATIO_PERCENT), 0, 1000,
                "universal's size-ratio rule inside a tiered level, in percent (RocksDB universal)"));
        ps.add(PolicyParameter.ofInt(MIN_MERGE_WIDTH, intOf(d, MIN_MERGE_WIDTH), 2, 1000,
                "fewest runs a size-ratio merge takes (RocksDB universal)"));
        ps.add(PolicyParameter.ofBoolean(DYNAMIC_LEVEL_BYTES, Boolean.parseBoolean(d.get(DYNAMIC_LEVEL_BYTES)),
                "derive level capacities from the last level (RocksDB's dynamic level bytes)"));
        ps.add(PolicyParameter.ofInt(LEVEL0_STOP_RUNS, intOf(d, LEVEL0_STOP_RUNS), 2, 10_000,
                "writers stop while level 0 holds this many runs and a merge runs"));
        ps.add(PolicyParameter.ofInt(LEVEL0_SLOWDOWN_RUNS, intOf(d, LEVEL0_SLOWDOWN_RUNS), 0, 10_000,
                "writers are paced to the store's delayed write rate, slower the nearer level 0 is to "
                        + LEVEL0_STOP_RUNS + ", while level 0 holds this many runs and a merge runs; 0 = "
                        + LEVEL0_STOP_RUNS + " x 20/36 rounded, at least " + LEVEL1_RUN_TRIGGER + " (RocksDB's "
                        + "level0_slowdown_writes_trigger 20 against its stop trigger 36); equal to "
                        + LEVEL0_STOP_RUNS + ": no slowdown"));
        ps.add(PolicyParameter.ofBoolean(BLOCK_COMPACTION, Boolean.parseBoolean(d.get(BLOCK_COMPACTION)),
                "merges from level 1 down into leveled levels reuse clean leaves in place, with selective compaction "
                        + "(seed 001, BlockDB); level 0 always rewrites"));
        ps.add(PolicyParameter.ofPerLevelDouble(MAX_DIRTY_RATIO, d.get(MAX_DIRTY_RATIO), 0.0, 1.0,
                "block compaction: a child table more dirty than this (dirty / file bytes) is rewritten; per level, "
                        + "levels above the last (not in the paper; FAMILIES.md 2.3 proposes 0.5)"));
        ps.add(PolicyParameter.ofPerLevelDouble(MIN_VALID_RATIO, d.get(MIN_VALID_RATIO), 0.0, 1.0,
                "block compaction: a child table less valid than this (valid / file bytes) is rewritten; per level, "
                        + "levels above the last (not in the paper; FAMILIES.md 2.3 proposes 0.5, the default 0.7 keeps "
                        + "BL5's peak space)"));
        ps.add(PolicyParameter.ofDouble(LAST_LEVEL_MAX_DIRTY_RATIO, Double.parseDouble(d.get(LAST_LEVEL_MAX_DIRTY_RATIO)),
                0.0, 1.0, "max-dirty-ratio of the last level (not in the paper; FAMILIES.md 2.3 proposes 0.2)"));
        ps.add(PolicyParameter.ofDouble(LAST_LEVEL_MIN_VALID_RATIO, Double.parseDouble(d.get(LAST_LEVEL_MIN_VALID_RATIO)),
                0.0, 1.0, "min-valid-ratio of the last level (not in the paper; FAMILIES.md 2.3 proposes 0.8)"));
        ps.add(PolicyParameter.ofDouble(MAX_FILE_FACTOR, Double.parseDouble(d.get(MAX_FILE_FACTOR)), 1.0, 1_000_000.0,
                "block compaction: a child table whose valid size exceeds this x target-file-bytes is rewritten "
                        + "and split (seed 001's MAX_FILE_SIZE; value not in the paper, FAMILIES.md 2.3 proposes 4)"));
        ps.add(PolicyParameter.ofBytes(LEVEL1_BYTES, PolicyParameter.parseBytes(d.get(LEVEL1_BYTES)), 0, Long.MAX_VALUE,
                "static capacity of level 1, each deeper level size-ratio times more (RocksDB's "
                        + "max_bytes_for_level_base; with dynamic-level-bytes=true only the deepest level keeps its "
                        + "static capacity); 0 = size-ratio^2 memtables"));
        ps.add(PolicyParameter.ofDouble(ALIGN_OUTPUTS, Double.parseDouble(d.get(ALIGN_OUTPUTS)), 0.0, 1.0,
                "0 = off; else a merge into a leveled level above the last also cuts its output at the next level's "
                        + "file boundaries once the current file holds this fraction of the target file size "
                        + "(RocksDB's grandparent-boundary cuts; issue 33 section 3)"));
        return ps;
    }

    /**
     * The configuration for {@code preset} with {@code given} raw values overriding its own:
     * {@code given} resolved against {@link #parameters(String)}, then {@link #config(String,
     * PolicyParameters)}.
     *
     * @param preset a preset's name, or {@code design-space}
     * @param given  raw values overriding the preset's
     * @return the configuration
     * @throws IllegalArgumentException naming the parameter and the bad value
     */
    public static DesignSpaceConfig config(String preset, Map<String, String> given) {
        return config(preset, PolicyParameters.resolve(preset, parameters(preset), given));
    }

    /**
     * The configuration for {@code preset} from typed values already resolved against
     * {@link #parameters(String)} (each parsed and range-checked there, once); only the rules
     * across parameters are checked here ({@link DesignSpaceConfig}).
     *
     * @param preset the preset's name, for messages
     * @param params values resolved against {@link #parameters(String)}
     * @return the configuration
     * @throws PolicyParameterException naming the rule {@code params} break and its parameters
     */

    public static DesignSpaceConfig config(String preset, PolicyParameters params) {
        List<TriggerKind> triggers = params.getStrings(TRIGGERS).stream().map(TriggerKind::parse).toList();
        Layout.Kind kind = choice(params.getString(LAYOUT), Layout.Kind.values(), Layout.Kind::xmlName);
        Layout layout = kind == Layout.Kind.HYBRID ? Layout.hybrid(params.getStrings(HYBRID_LEVELS)) : Layout.of(kind);
        try {
            return new DesignSpaceConfig(triggers, layout,
                    choice(params.getString(GRANULARITY), Granularity.values(), Granularity::xmlName),
                    choice(params.getString(DATA_MOVEMENT), DataMovement.values(), DataMovement::xmlName),
                    params.getInt(FILES_PER_MERGE), params.getInt(SIZE_RATIO), params.getLong(TARGET_FILE_BYTES),
                    params.getInt(LEVEL1_RUN_TRIGGER), params.getDouble(TOMBSTONE_DENSITY),
                    params.getLong(TOMBSTONE_TTL), params.getLong(FILE_TTL), params.getInt(MAX_SIZE_AMP),
                    params.getInt(SIZE_RATIO_PERCENT), params.getInt(MIN_MERGE_WIDTH),
                    params.getBoolean(DYNAMIC_LEVEL_BYTES), params.getInt(LEVEL0_STOP_RUNS),
                    params.getInt(LEVEL0_SLOWDOWN_RUNS),
                    params.getBoolean(BLOCK_COMPACTION), params.getDoubles(MAX_DIRTY_RATIO),
                    params.getDoubles(MIN_VALID_RATIO), params.getDouble(LAST_LEVEL_MAX_DIRTY_RATIO),
                    params.getDouble(LAST_LEVEL_MIN_VALID_RATIO), params.getDouble(MAX_FILE_FACTOR),
                    params.getLong(LEVEL1_BYTES), params.getDouble(ALIGN_OUTPUTS));
        } catch (PolicyParameterException e) {
            throw e.withPrefix("merge policy '" + preset + "': ");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("merge policy '" + preset + "': " + e.getMessage(), e);
        }
    }

    private static int intOf(Map<String, String> d, String key) {
        return Integer.parseInt(d.get(key));
    }

    /** The constant of {@code values} whose XML name is {@code name} (a choice {@link #parameters} declared). */
    private static <E> E choice(String name, E[] values, java.util.function.Function<E, String> xml) {
        for (E e : values) {
            if (xml.apply(e).equals(name)) {
                return e;
            }
        }
        throw new IllegalStateException("'" + name + "' passed the parameter's choices but names no constant");
    }

    private static <E> List<String> names(E[] values, java.util.function.Function<E, String> xml) {
        return java.util.Arrays.stream(values).map(xml).toList();
    }

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
