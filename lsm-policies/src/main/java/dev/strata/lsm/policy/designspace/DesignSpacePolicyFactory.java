package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Registers {@code design-space} and its ten presets (seed 003's Table 2) by name. Every
 * preset takes the same parameters; only the defaults differ, which is what makes each
 * strategy "primitives only" (check DS1).
 */
public class DesignSpacePolicyFactory implements MergePolicyFactory {
    private static final List<String> TRIGGERS = Arrays.stream(TriggerKind.values()).map(TriggerKind::xmlName).toList();
    private static final List<String> LAYOUTS = Arrays.stream(Layout.Kind.values()).map(Layout.Kind::xmlName).toList();
    private static final List<String> GRANULARITIES = Arrays.stream(Granularity.values())
            .map(Granularity::xmlName).toList();
    private static final List<String> MOVEMENTS = Arrays.stream(DataMovement.values())
            .map(DataMovement::xmlName).toList();

    private final String name;
    private final String description;

    /** The plain {@code design-space} policy (defaults: leveling, one file, least overlap with the next level). */
    public DesignSpacePolicyFactory() {
        this("design-space", "the compaction design space of seed 003: triggers, layout, granularity and data "
                + "movement as parameters, with pseudo-compaction");
    }

    protected DesignSpacePolicyFactory(String name, String description) {
        this.name = name;
        this.description = description;
    }

    @Override

    public String module() {

        return "lsm-policies";

    }


    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public List<PolicyParameter> parameters() {
        Map<String, String> d = DesignSpacePresets.values(name);
        List<PolicyParameter> ps = new ArrayList<>();
        ps.add(PolicyParameter.ofChoiceList(DesignSpacePresets.TRIGGERS, d.get(DesignSpacePresets.TRIGGERS), TRIGGERS,
                "compaction triggers in priority order (seed 003)"));
        ps.add(PolicyParameter.ofChoice(DesignSpacePresets.LAYOUT, d.get(DesignSpacePresets.LAYOUT), LAYOUTS,
                "data layout (seed 003)"));
        ps.add(PolicyParameter.ofPerLevelChoice(DesignSpacePresets.HYBRID_LEVELS,
                d.get(DesignSpacePresets.HYBRID_LEVELS), List.of("tiered", "leveled", "T", "L"),
                "for layout=hybrid: each level's shape, the last repeated (not in the paper)"));
        ps.add(PolicyParameter.ofChoice(DesignSpacePresets.GRANULARITY, d.get(DesignSpacePresets.GRANULARITY),
                GRANULARITIES, "how much one compaction takes (seed 003)"));
        ps.add(PolicyParameter.ofChoice(DesignSpacePresets.DATA_MOVEMENT, d.get(DesignSpacePresets.DATA_MOVEMENT),
                MOVEMENTS, "which file a partial compaction takes (seed 003)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.FILES_PER_MERGE, intOf(d, DesignSpacePresets.FILES_PER_MERGE),
                1, 1000, "files several-files takes (not in the paper)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.SIZE_RATIO, intOf(d, DesignSpacePresets.SIZE_RATIO), 2, 1000,
                "T, the size ratio between levels (seed 003: 10)"));
        ps.add(PolicyParameter.ofBytes(DesignSpacePresets.TARGET_FILE_BYTES,
                PolicyParameter.parseBytes(d.get(DesignSpacePresets.TARGET_FILE_BYTES)), 0, Long.MAX_VALUE,
                "output file size; 0 = the memtable size, learned from flushes (not in the paper)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.LEVEL1_RUN_TRIGGER,
                intOf(d, DesignSpacePresets.LEVEL1_RUN_TRIGGER), 2, 1000,
                "sorted runs that make a tiered level compact (RocksDB's level0 trigger; not in the paper)"));
        ps.add(PolicyParameter.ofDouble(DesignSpacePresets.TOMBSTONE_DENSITY,
                Double.parseDouble(d.get(DesignSpacePresets.TOMBSTONE_DENSITY)), 0.0, 1.0,
                "tombstones per entry that trigger tombstone-density (not in the paper)"));
        ps.add(PolicyParameter.ofDuration(DesignSpacePresets.TOMBSTONE_TTL, d.get(DesignSpacePresets.TOMBSTONE_TTL),
                "D_th: a tombstone reaches the last level within this (Lethe's per-level split; value not in the "
                        + "paper)"));
        ps.add(PolicyParameter.ofDuration(DesignSpacePresets.FILE_TTL, d.get(DesignSpacePresets.FILE_TTL),
                "a file older than this moves down (staleness trigger; 0 = never; not in the paper)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.MAX_SIZE_AMP, intOf(d, DesignSpacePresets.MAX_SIZE_AMP), 1,
                1_000_000, "space-amp trigger: bytes above the oldest run / that run, in percent (RocksDB universal)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.SIZE_RATIO_PERCENT,
                intOf(d, DesignSpacePresets.SIZE_RATIO_PERCENT), 0, 1000,
                "universal's size-ratio rule inside a tiered level, in percent (RocksDB universal)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.MIN_MERGE_WIDTH, intOf(d, DesignSpacePresets.MIN_MERGE_WIDTH),
                2, 1000, "fewest runs a size-ratio merge takes (RocksDB universal)"));
        ps.add(PolicyParameter.ofBoolean(DesignSpacePresets.DYNAMIC_LEVEL_BYTES,
                Boolean.parseBoolean(d.get(DesignSpacePresets.DYNAMIC_LEVEL_BYTES)),
                "derive level capacities from the last level (RocksDB's dynamic level bytes)"));
        ps.add(PolicyParameter.ofInt(DesignSpacePresets.LEVEL0_STOP_RUNS, intOf(d, DesignSpacePresets.LEVEL0_STOP_RUNS),
                2, 10_000, "writers stop while level 0 holds this many runs and a merge runs"));
        ps.add(PolicyParameter.ofBoolean(DesignSpacePresets.BLOCK_COMPACTION,
                Boolean.parseBoolean(d.get(DesignSpacePresets.BLOCK_COMPACTION)),
                "merges from level 1 down into leveled levels reuse clean leaves in place, with selective compaction "
                        + "(seed 001, BlockDB); level 0 always rewrites"));
        ps.add(PolicyParameter.ofPerLevelDouble(DesignSpacePresets.MAX_DIRTY_RATIO,
                d.get(DesignSpacePresets.MAX_DIRTY_RATIO), 0.0, 1.0,
                "block compaction: a child table more dirty than this (dirty / file bytes) is rewritten; per level, "
                        + "levels above the last (not in the paper; FAMILIES.md 2.3 proposes 0.5)"));
        ps.add(PolicyParameter.ofPerLevelDouble(DesignSpacePresets.MIN_VALID_RATIO,
                d.get(DesignSpacePresets.MIN_VALID_RATIO), 0.0, 1.0,
                "block compaction: a child table less valid than this (valid / file bytes) is rewritten; per level, "
                        + "levels above the last (not in the paper; FAMILIES.md 2.3 proposes 0.5, the default 0.7 keeps "
                        + "BL5's peak space)"));
        ps.add(PolicyParameter.ofDouble(DesignSpacePresets.LAST_LEVEL_MAX_DIRTY_RATIO,
                Double.parseDouble(d.get(DesignSpacePresets.LAST_LEVEL_MAX_DIRTY_RATIO)), 0.0, 1.0,
                "max-dirty-ratio of the last level (not in the paper; FAMILIES.md 2.3 proposes 0.2)"));
        ps.add(PolicyParameter.ofDouble(DesignSpacePresets.LAST_LEVEL_MIN_VALID_RATIO,
                Double.parseDouble(d.get(DesignSpacePresets.LAST_LEVEL_MIN_VALID_RATIO)), 0.0, 1.0,
                "min-valid-ratio of the last level (not in the paper; FAMILIES.md 2.3 proposes 0.8)"));
        ps.add(PolicyParameter.ofDouble(DesignSpacePresets.MAX_FILE_FACTOR,
                Double.parseDouble(d.get(DesignSpacePresets.MAX_FILE_FACTOR)), 1.0, 1_000_000.0,
                "block compaction: a child table whose valid size exceeds this x target-file-bytes is rewritten "
                        + "and split (seed 001's MAX_FILE_SIZE; value not in the paper, FAMILIES.md 2.3 proposes 4)"));
        ps.add(PolicyParameter.ofBytes(DesignSpacePresets.LEVEL1_BYTES,
                PolicyParameter.parseBytes(d.get(DesignSpacePresets.LEVEL1_BYTES)), 0, Long.MAX_VALUE,
                "static capacity of level 1, each deeper level size-ratio times more (RocksDB's "
                        + "max_bytes_for_level_base; with dynamic-level-bytes=true only the deepest level keeps its "
                        + "static capacity); 0 = size-ratio^2 memtables"));
        return ps;
    }

    private static int intOf(Map<String, String> d, String key) {
        return Integer.parseInt(d.get(key));
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        Map<String, String> given = new LinkedHashMap<>();
        for (PolicyParameter p : parameters()) {
            given.put(p.name(), p.format(params.asMap().get(p.name())));
        }
        return new DesignSpacePolicy(name, DesignSpacePresets.config(name, given));
    }

    /** Seed 003's Full: whole-level compactions; writers wait while one runs. */
    public static final class Full extends DesignSpacePolicyFactory {
        public Full() {
            super("full", "design-space preset Full: leveling, whole-level compactions on saturation (seed 003)");
        }
    }

    /** Seed 003's LO+1. */
    public static final class LeastOverlapParent extends DesignSpacePolicyFactory {
        public LeastOverlapParent() {
            super("lo1", "design-space preset LO+1: leveling, one file with the least overlap with the next level");
        }
    }

    /** Seed 003's LO+2. */
    public static final class LeastOverlapGrandparent extends DesignSpacePolicyFactory {
        public LeastOverlapGrandparent() {
            super("lo2", "design-space preset LO+2: leveling, one file with the least overlap two levels down");
        }
    }

    /** Seed 003's RR (LevelDB's picker). */
    public static final class RoundRobin extends DesignSpacePolicyFactory {
        public RoundRobin() {
            super("rr", "design-space preset RR: leveling, files in round-robin key order (LevelDB)");
        }
    }

    /** Seed 003's Cold. */
    public static final class Coldest extends DesignSpacePolicyFactory {
        public Coldest() {
            super("cold", "design-space preset Cold: leveling, the file whose newest entry is oldest");
        }
    }

    /** Seed 003's Old. */
    public static final class Oldest extends DesignSpacePolicyFactory {
        public Oldest() {
            super("old", "design-space preset Old: leveling, the file with the oldest entry");
        }
    }

    /** Seed 003's TSD. */
    public static final class TombstoneDensity extends DesignSpacePolicyFactory {
        public TombstoneDensity() {
            super("tsd", "design-space preset TSD: files dense in tombstones first, then least overlap");
        }
    }

    /** Seed 003's TSA. */
    public static final class TombstoneAge extends DesignSpacePolicyFactory {
        public TombstoneAge() {
            super("tsa", "design-space preset TSA: files whose oldest tombstone outlived its TTL first, then least "
                    + "overlap");
        }
    }

    /** Seed 003's Tier (RocksDB universal compaction's rules). */
    public static final class Tier extends DesignSpacePolicyFactory {
        public Tier() {
            super("tier", "design-space preset Tier: tiering, all runs of a level merged down (RocksDB universal)");
        }
    }

    /** Seed 001's BlockDB: {@code rr} with selective block compaction. */
    public static final class BlockDb extends DesignSpacePolicyFactory {
        public BlockDb() {
            super("blockdb", "design-space preset BlockDB (seed 001): rr's leveled tree and round-robin picker, with "
                    + "block compaction (clean leaves reused in place) chosen per child table by selective compaction");
        }
    }

    /** Seed 003's 1-Lvl: RocksDB's default shape. */
    public static final class OneLeveling extends DesignSpacePolicyFactory {
        public OneLeveling() {
            super("one-leveling", "design-space preset 1-Lvl: level 0 tiered, leveled below, least overlap");
        }
    }
}
