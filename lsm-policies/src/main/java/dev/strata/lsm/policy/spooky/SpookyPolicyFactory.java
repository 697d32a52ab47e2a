package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;
import java.util.OptionalInt;

/** Registers {@code spooky}: Spooky's partitioned merge (seed 000) with the paper's parameters. */
public final class SpookyPolicyFactory implements MergePolicyFactory {
    private static final SpookyConfig D = SpookyConfig.defaults();

    @Override
    public String name() {
        return "spooky";
    }

    @Override
    public String module() {
        return "lsm-policies";
    }

    @Override
    public String description() {
        return "Spooky's partitioned merge (seed 000): full preemptive merges above X, dividing merges into X cut "
                + "at the largest level's files, partitioned merges from X down, dynamic level capacities";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of(
                PolicyParameter.ofInt("size-ratio", D.sizeRatio(), 2, 1000, "T, the capacity ratio of adjacent levels "
                        + "(seed 000: 5)"),
                PolicyParameter.ofInt("x-offset", D.xOffset(), 0, 64, "d: dividing merges go into X = L - d; 0 gives "
                        + "Full Merge (seed 000 recommends X = L - 2)"),
                PolicyParameter.ofChoice("layout", D.layout(), SpookyConfig.LAYOUTS, "the levels' layout: leveling, "
                        + "lazy-leveling (runs accumulate above the largest level) or tiering (at every level; "
                        + "seed 000 section 4.4)"),
                PolicyParameter.ofInt("l0-compaction-trigger", D.l0CompactionTrigger(), 1, 1000, "alpha: level-0 "
                        + "files that start a merge (seed 000's RocksDB build: 4)"),
                PolicyParameter.ofInt("l0-slowdown-trigger", D.l0SlowdownTrigger(), 1, 1000, "beta: level-0 files "
                        + "at which writes slow down (seed 000: 4)"),
                PolicyParameter.ofInt("l0-stop-trigger", D.l0StopTrigger(), 1, 1000, "gamma: level-0 files at which "
                        + "writes stop while a merge runs (seed 000: 9)"),
                PolicyParameter.ofBoolean("skew-optimizations", D.skewOptimizations(), "leave partitions that "
                        + "received no new data untouched (seed 000 section 4.3)"),
                PolicyParameter.ofBoolean("intra-l0-merge", D.intraL0Merge(), "merge alpha or more idle level-0 "
                        + "files of about equal size into one while the merge out of level 0 waits (seed 000 "
                        + "section 5, avoiding stalls)"),
                PolicyParameter.ofBoolean("flush-as-own-file", D.flushAsOwnFile(), "move level-0 files down "
                        + "instead of merging them when their key ranges and the target's do not overlap, as "
                        + "sequential inserts produce (seed 000 section 4.3, Fig. 11B)"));
    }

    /**
     * Two: seed 000 §5 runs partitioned, full preemptive and level-0 compactions concurrently,
     * so a partitioned merge and the merge out of level 0 (or an intra-L0 merge) each get a
     * thread.
     */
    @Override
    public OptionalInt mergeThreads() {
        return OptionalInt.of(2);
    }

    /** The level-0 triggers' order ({@link SpookyConfig}), checked once at configuration. */
    @Override
    public void validate(PolicyParameters params) {
        config(params);
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        return new SpookyPolicy(config(params));
    }

    private static SpookyConfig config(PolicyParameters params) {
        return new SpookyConfig(params.getInt("size-ratio"), params.getInt("x-offset"),
                params.getString("layout"), params.getInt("l0-compaction-trigger"),
                params.getInt("l0-slowdown-trigger"), params.getInt("l0-stop-trigger"),
                params.getBoolean("skew-optimizations"), params.getBoolean("intra-l0-merge"),
                params.getBoolean("flush-as-own-file"));
    }
}
