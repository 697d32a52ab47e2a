package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.PolicyParameterException;

import java.util.List;
import java.util.Objects;

import static dev.strata.lsm.policy.designspace.DesignSpacePresets.BLOCK_COMPACTION;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.FILE_TTL;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.HYBRID_LEVELS;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.LAYOUT;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.LEVEL0_SLOWDOWN_RUNS;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.LEVEL0_STOP_RUNS;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.LEVEL1_RUN_TRIGGER;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.TOMBSTONE_TTL;
import static dev.strata.lsm.policy.designspace.DesignSpacePresets.TRIGGERS;

/**
 * One point of the compaction design space: the four primitives and their thresholds.
 * Immutable; built by {@link DesignSpacePolicyFactory} from XML parameters. Its constructor
 * checks the rules across parameters (a {@link PolicyParameterException} naming them), which
 * the factory's {@code validate} runs when a store's configuration is built.
 *
 * @param triggers triggers in priority order (the first that yields a compaction wins)
 * @param layout which levels are leveled and which tiered
 * @param granularity how much one compaction takes
 * @param movement which file a partial compaction takes
 * @param filesPerMerge files taken by {@link Granularity#SEVERAL_FILES}
 * @param sizeRatio T: capacity of level i+1 = T x capacity of level i; level 0 holds T memtables
 * @param targetFileBytes output file size; 0 = the store's memtable size (TreeView.settings())
 * @param level1RunTrigger sorted runs that make a tiered level compact (RocksDB universal's file-number trigger)
 * @param tombstoneDensity tombstones / entries that make a file a {@link TriggerKind#TOMBSTONE_DENSITY} candidate
 * @param tombstoneTtlMillis D_th: how long a tombstone may live before it must reach the last level
 * @param fileTtlMillis how long a file may stay at its level ({@link TriggerKind#STALENESS}); 0 = never stale
 * @param maxSizeAmplificationPercent the space-amplification trigger: bytes above the last level / last level x 100
 * @param sizeRatioPercent RocksDB universal's size_ratio: in a tiered level, the newest runs are merged
 *     early when each next run is within this percentage of the runs before it combined
 * @param minMergeWidth fewest runs such an early size-ratio merge takes
 * @param dynamicLevelBytes derive capacities from the last level's size (RocksDB's level_compaction_dynamic_level_bytes)
 * @param level0StopRuns writers stop while level 0 holds this many runs and a merge is running
 * @param level0SlowdownRuns writers are slowed down (paced to the store's delayed write rate,
 *     slower the nearer level 0 is to {@code level0StopRuns}) while level 0 holds this many runs
 *     and a merge is running; 0 = {@code level0StopRuns} × 20/36 rounded, at least
 *     {@code level1RunTrigger} (RocksDB's 20 and 36); equal to {@code level0StopRuns}: no slowdown
 * @param blockCompaction partial merges from level 1 down into a leveled level run as block
 *     compactions (seed 001: REUSE_BLOCKS with selective thresholds); level 0 always rewrites
 * @param maxDirtyRatio per level (index = level; deeper levels take the last entry): dirty ÷ file
 *     size above which a child table is rewritten, for levels above the last
 * @param minValidRatio per level, as {@code maxDirtyRatio}: valid ÷ file size below which a
 *     child table is rewritten, for levels above the last
 * @param lastLevelMaxDirtyRatio {@code maxDirtyRatio} of the last level
 * @param lastLevelMinValidRatio {@code minValidRatio} of the last level
 * @param maxFileFactor a child whose valid size exceeds this × the target file size is rewritten (split)
 * @param level1Bytes the static capacity of level 1 (RocksDB's max_bytes_for_level_base), each deeper
 *     level T times more; 0 = T² memtables (the paper's numbering, see {@link LevelCapacities})
 * @param alignOutputs 0 = off; else the fraction of the target file size after which a merge's
 *     output is also cut at the next level's file boundaries (issue 33 §3)
 */
public record DesignSpaceConfig(List<TriggerKind> triggers, Layout layout, Granularity granularity,
                                DataMovement movement, int filesPerMerge, int sizeRatio, long targetFileBytes,
                                int level1RunTrigger, double tombstoneDensity, long tombstoneTtlMillis,
                                long fileTtlMillis, int maxSizeAmplificationPercent, int sizeRatioPercent,
                                int minMergeWidth, boolean dynamicLevelBytes, int level0StopRuns,
                                int level0SlowdownRuns, boolean blockCompaction, List<Double> maxDirtyRatio, List<Double> minValidRatio,
                                double lastLevelMaxDirtyRatio, double lastLevelMinValidRatio, double maxFileFactor,
                                long level1Bytes, double alignOutputs) {
    /**
     * Copies the lists and checks each value's own range and the rules across values.
     *
     * @param triggers triggers in priority order (the first that yields a compaction wins)
     * @param layout which levels are leveled and which tiered
     * @param granularity how much one compaction takes
     * @param movement which file a partial compaction takes
     * @param filesPerMerge files taken by {@link Granularity#SEVERAL_FILES}
     * @param sizeRatio T: capacity of level i+1 = T x capacity of level i; level 0 holds T memtables
     * @param targetFileBytes output file size; 0 = the store's memtable size (TreeView.settings())
     * @param level1RunTrigger sorted runs that make a tiered level compact (RocksDB universal's file-number trigger)
     * @param tombstoneDensity tombstones / entries that make a file a {@link TriggerKind#TOMBSTONE_DENSITY} candidate
     * @param tombstoneTtlMillis D_th: how long a tombstone may live before it must reach the last level
     * @param fileTtlMillis how long a file may stay at its level ({@link TriggerKind#STALENESS}); 0 = never stale
     * @param maxSizeAmplificationPercent the space-amplification trigger: bytes above the last level / last level x 100
     * @param sizeRatioPercent RocksDB universal's size_ratio: in a tiered level, the newest runs are merged
     *     early when each next run is within this percentage of the runs before it combined
     * @param minMergeWidth fewest runs such an early size-ratio merge takes
     * @param dynamicLevelBytes derive capacities from the last level's size (RocksDB's level_compaction_dynamic_level_bytes)
     * @param level0StopRuns writers stop while level 0 holds this many runs and a merge is running
     * @param level0SlowdownRuns writers are slowed down (paced to the store's delayed write rate,
     *     slower the nearer level 0 is to {@code level0StopRuns}) while level 0 holds this many runs
     *     and a merge is running; 0 = {@code level0StopRuns} × 20/36 rounded, at least
     *     {@code level1RunTrigger} (RocksDB's 20 and 36); equal to {@code level0StopRuns}: no slowdown
     * @param blockCompaction partial merges from level 1 down into a leveled level run as block
     *     compactions (seed 001: REUSE_BLOCKS with selective thresholds); level 0 always rewrites
     * @param maxDirtyRatio per level (index = level; deeper levels take the last entry): dirty ÷ file
     *     size above which a child table is rewritten, for levels above the last
     * @param minValidRatio per level, as {@code maxDirtyRatio}: valid ÷ file size below which a
     *     child table is rewritten, for levels above the last
     * @param lastLevelMaxDirtyRatio {@code maxDirtyRatio} of the last level
     * @param lastLevelMinValidRatio {@code minValidRatio} of the last level
     * @param maxFileFactor a child whose valid size exceeds this × the target file size is rewritten (split)
     * @param level1Bytes the static capacity of level 1 (RocksDB's max_bytes_for_level_base), each deeper
     *     level T times more; 0 = T² memtables (the paper's numbering, see {@link LevelCapacities})
     * @param alignOutputs 0 = off; else a merge into a leveled level above the last also cuts its
     *     output at the next level's file boundaries once the current file holds this fraction of
     *     the target file size (RocksDB's grandparent-boundary cuts, so a file later picked
     *     overlaps whole next-level files)
     * @throws IllegalArgumentException naming a value out of its range
     * @throws dev.strata.lsm.policy.PolicyParameterException naming the parameters of a broken rule
     */
    public DesignSpaceConfig {
        triggers = List.copyOf(triggers);
        if (triggers.isEmpty()) {
            throw new IllegalArgumentException("at least one trigger is needed");
        }
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(granularity, "granularity");
        Objects.requireNonNull(movement, "movement");
        if (sizeRatio < 2) {
            throw new IllegalArgumentException("size-ratio must be >= 2, got " + sizeRatio);
        }
        if (level1RunTrigger < 2) {
            throw new IllegalArgumentException("level1-run-trigger must be >= 2, got " + level1RunTrigger);
        }
        maxDirtyRatio = List.copyOf(maxDirtyRatio);
        minValidRatio = List.copyOf(minValidRatio);
        if (maxDirtyRatio.isEmpty() || minValidRatio.isEmpty()) {
            throw new IllegalArgumentException("max-dirty-ratio and min-valid-ratio need at least one value");
        }
        if (!(maxFileFactor >= 1)) {
            throw new IllegalArgumentException("max-file-factor must be >= 1, got " + maxFileFactor);
        }
        if (!(alignOutputs >= 0 && alignOutputs <= 1)) {
            throw new IllegalArgumentException("align-outputs must be from 0 (off) to 1, got " + alignOutputs);
        }
        if (level1Bytes < 0) {
            throw new IllegalArgumentException("level1-bytes must be >= 0 (0 = T^2 memtables), got " + level1Bytes);
        }
        if (level0SlowdownRuns < 0) {
            throw new IllegalArgumentException("level0-slowdown-runs must be >= 0 (0 = derived from level0-stop-runs),"
                    + " got " + level0SlowdownRuns);
        }
        checkRules(triggers, layout, level1RunTrigger, tombstoneTtlMillis, fileTtlMillis, level0StopRuns,
                level0SlowdownRuns, blockCompaction);
    }

    /**
     * The rules across parameters, each a {@link PolicyParameterException} naming its parameters
     * ({@link DesignSpacePolicyFactory#validate} runs them at {@code StoreConfig.Builder.build()}).
     */
    private static void checkRules(List<TriggerKind> triggers, Layout layout, int level1RunTrigger,
                                   long tombstoneTtlMillis, long fileTtlMillis, int level0StopRuns,
                                   int level0SlowdownRuns, boolean blockCompaction) {
        String layoutParams = layout.kind() == Layout.Kind.HYBRID ? HYBRID_LEVELS : LAYOUT;
        if (level0StopRuns < level1RunTrigger) {
            throw new PolicyParameterException(LEVEL0_STOP_RUNS + " (" + level0StopRuns + ") must be at least "
                    + LEVEL1_RUN_TRIGGER + " (" + level1RunTrigger + "): writers would stop before level 0 is due"
                    + " a merge", LEVEL0_STOP_RUNS, LEVEL1_RUN_TRIGGER);
        }
        if (level0SlowdownRuns != 0 && level0SlowdownRuns < level1RunTrigger) {
            throw new PolicyParameterException(LEVEL0_SLOWDOWN_RUNS + " (" + level0SlowdownRuns + ") must be 0 (derived)"
                    + " or at least " + LEVEL1_RUN_TRIGGER + " (" + level1RunTrigger + "): writers would be slowed"
                    + " down before level 0 is due a merge", LEVEL0_SLOWDOWN_RUNS, LEVEL1_RUN_TRIGGER);
        }
        if (level0SlowdownRuns > level0StopRuns) {
            throw new PolicyParameterException(LEVEL0_SLOWDOWN_RUNS + " (" + level0SlowdownRuns + ") must be at most "
                    + LEVEL0_STOP_RUNS + " (" + level0StopRuns + "): the slowdown comes before the stop (equal: no"
                    + " slowdown)", LEVEL0_SLOWDOWN_RUNS, LEVEL0_STOP_RUNS);
        }
        if (triggers.contains(TriggerKind.STALENESS) && fileTtlMillis == 0) {
            throw new PolicyParameterException("the staleness trigger needs " + FILE_TTL + " > 0 (0 means files"
                    + " never go stale, so it would never fire)", FILE_TTL, TRIGGERS);
        }
        for (TriggerKind t : List.of(TriggerKind.TOMBSTONE_DENSITY, TriggerKind.TOMBSTONE_TTL)) {
            if (triggers.contains(t) && tombstoneTtlMillis == 0) {
                throw new PolicyParameterException("the " + t.xmlName() + " trigger needs " + TOMBSTONE_TTL
                        + " > 0: it is D_th, the per-level tombstone deadlines and the wait before a bottommost "
                        + "file that had to keep its tombstones is rewritten again (0 would rewrite it at every "
                        + "decision)", TOMBSTONE_TTL, TRIGGERS);
            }
        }
        if (triggers.contains(TriggerKind.RUNS) && !layout.hasTiered()) {
            throw new PolicyParameterException("the runs trigger needs a tiered level, but " + LAYOUT + " " + layout
                    + " has none, so it would never fire", TRIGGERS, layoutParams);
        }
        if (triggers.contains(TriggerKind.SATURATION) && !layout.hasLeveled()) {
            throw new PolicyParameterException("the saturation trigger needs a leveled level, but " + LAYOUT + " "
                    + layout + " has none, so it would never fire", TRIGGERS, layoutParams);
        }
        if (layout.hasTiered() && !triggers.contains(TriggerKind.RUNS)
                && !triggers.contains(TriggerKind.SPACE_AMPLIFICATION)) {
            throw new PolicyParameterException(LAYOUT + " " + layout + " has tiered levels, which only the runs or"
                    + " space-amp trigger moves down; " + TRIGGERS + " " + names(triggers) + " has neither, so their"
                    + " runs would pile up", TRIGGERS, layoutParams);
        }
        if (blockCompaction && !layout.hasLeveledBelowZero()) {
            throw new PolicyParameterException(BLOCK_COMPACTION + "=true merges into leveled levels below level 0,"
                    + " but " + LAYOUT + " " + layout + " has none", BLOCK_COMPACTION, layoutParams);
        }
    }

    /**
     * The level-0 runs from which writers are slowed down while a merge runs: {@code
     * level0SlowdownRuns} as given, or for 0 {@code level0StopRuns} × 20/36 rounded (RocksDB's
     * default slowdown and stop triggers, 20 and 36), at least {@code level1RunTrigger} and at
     * most {@code level0StopRuns}.
     *
     * @return the slowdown threshold in level-0 runs; equal to {@link #level0StopRuns()} when there is no slowdown band
     */
    public int effectiveLevel0SlowdownRuns() {
        if (level0SlowdownRuns != 0) {
            return level0SlowdownRuns;
        }
        int derived = (int) Math.round(level0StopRuns * 20.0 / 36.0);
        return Math.min(level0StopRuns, Math.max(level1RunTrigger, derived));
    }

    private static String names(List<TriggerKind> triggers) {
        return String.join(",", triggers.stream().map(TriggerKind::xmlName).toList());
    }

    /**
     * The selective compaction thresholds of a merge into {@code level} (the last level's own if it is the last).
     *
     * @param level           the level merged into
     * @param last            whether that level is the tree's deepest
     * @param targetFileBytes the output file size, which {@code maxFileFactor} multiplies
     * @return the thresholds a block compaction into that level uses
     */
    public dev.strata.lsm.policy.SelectiveThresholds thresholds(int level, boolean last, long targetFileBytes) {

        int i = Math.min(level, maxDirtyRatio.size() - 1);
        int j = Math.min(level, minValidRatio.size() - 1);
        return new dev.strata.lsm.policy.SelectiveThresholds(Math.max(1, Math.round(maxFileFactor * targetFileBytes)),
                last ? lastLevelMinValidRatio : minValidRatio.get(j), last ? lastLevelMaxDirtyRatio : maxDirtyRatio.get(i));
    }
}
