package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * Registers {@code design-space} and its ten presets (seed 003's Table 2) by name. Every
 * preset takes the same parameters; only the defaults differ, which is what makes each
 * strategy "primitives only" (check DS1).
 */
public class DesignSpacePolicyFactory implements MergePolicyFactory {
    private final String name;
    private final String description;

    /** The plain {@code design-space} policy (defaults: leveling, one file, least overlap with the next level). */
    public DesignSpacePolicyFactory() {
        this("design-space", "the compaction design space of seed 003: triggers, layout, granularity and data "
                + "movement as parameters, with pseudo-compaction");
    }

    /**
     * A preset registered under its own name: the same parameters, the preset's values as their
     * defaults ({@link DesignSpacePresets#values}).
     *
     * @param name        the preset's name, a key of {@link DesignSpacePresets#allPresetNames()}
     * @param description one line saying what the preset does
     */
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

    /** The parameters of {@link DesignSpacePresets#parameters}: this preset's defaults, every range. */
    @Override
    public List<PolicyParameter> parameters() {
        return DesignSpacePresets.parameters(name);
    }

    /** The rules across the design-space parameters ({@link DesignSpaceConfig}), checked once at configuration. */
    @Override
    public void validate(PolicyParameters params) {
        DesignSpacePresets.config(name, params);
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        return new DesignSpacePolicy(name, DesignSpacePresets.config(name, params));
    }

    /** Seed 003's Full: whole-level compactions; writers wait while one runs. */
    public static final class Full extends DesignSpacePolicyFactory {
        /** The {@code full} preset; ServiceLoader calls this. */
        public Full() {
            super("full", "design-space preset Full: leveling, whole-level compactions on saturation (seed 003)");
        }
    }

    /** Seed 003's LO+1. */
    public static final class LeastOverlapParent extends DesignSpacePolicyFactory {
        /** The {@code lo1} preset; ServiceLoader calls this. */
        public LeastOverlapParent() {
            super("lo1", "design-space preset LO+1: leveling, one file with the least overlap with the next level");
        }
    }

    /** Seed 003's LO+2. */
    public static final class LeastOverlapGrandparent extends DesignSpacePolicyFactory {
        /** The {@code lo2} preset; ServiceLoader calls this. */
        public LeastOverlapGrandparent() {
            super("lo2", "design-space preset LO+2: leveling, one file with the least overlap two levels down");
        }
    }

    /** Seed 003's RR (LevelDB's picker). */
    public static final class RoundRobin extends DesignSpacePolicyFactory {
        /** The {@code rr} preset; ServiceLoader calls this. */
        public RoundRobin() {
            super("rr", "design-space preset RR: leveling, files in round-robin key order (LevelDB)");
        }
    }

    /** Seed 003's Cold. */
    public static final class Coldest extends DesignSpacePolicyFactory {
        /** The {@code cold} preset; ServiceLoader calls this. */
        public Coldest() {
            super("cold", "design-space preset Cold: leveling, the file whose newest entry is oldest");
        }
    }

    /** Seed 003's Old. */
    public static final class Oldest extends DesignSpacePolicyFactory {
        /** The {@code old} preset; ServiceLoader calls this. */
        public Oldest() {
            super("old", "design-space preset Old: leveling, the file with the oldest entry");
        }
    }

    /** Seed 003's TSD. */
    public static final class TombstoneDensity extends DesignSpacePolicyFactory {
        /** The {@code tsd} preset; ServiceLoader calls this. */
        public TombstoneDensity() {
            super("tsd", "design-space preset TSD: files dense in tombstones first, then least overlap");
        }
    }

    /** Seed 003's TSA. */
    public static final class TombstoneAge extends DesignSpacePolicyFactory {
        /** The {@code tsa} preset; ServiceLoader calls this. */
        public TombstoneAge() {
            super("tsa", "design-space preset TSA: files whose oldest tombstone outlived its TTL first, then least "
                    + "overlap");
        }
    }

    /** Seed 003's Tier (RocksDB universal compaction's rules). */
    public static final class Tier extends DesignSpacePolicyFactory {
        /** The {@code tier} preset; ServiceLoader calls this. */
        public Tier() {
            super("tier", "design-space preset Tier: tiering, all runs of a level merged down (RocksDB universal)");
        }
    }

    /** Seed 001's BlockDB: {@code rr} with selective block compaction. */
    public static final class BlockDb extends DesignSpacePolicyFactory {
        /** The {@code blockdb} preset; ServiceLoader calls this. */
        public BlockDb() {
            super("blockdb", "design-space preset BlockDB (seed 001): rr's leveled tree and round-robin picker, with "
                    + "block compaction (clean leaves reused in place) chosen per child table by selective compaction");
        }
    }

    /** Seed 003's 1-Lvl: RocksDB's default shape. */
    public static final class OneLeveling extends DesignSpacePolicyFactory {
        /** The {@code one-leveling} preset; ServiceLoader calls this. */
        public OneLeveling() {
            super("one-leveling", "design-space preset 1-Lvl: level 0 tiered, leveled below, least overlap");
        }
    }
}
