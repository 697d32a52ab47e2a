package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * The ServiceLoader entries of the stack-based policies of the bounded-depth paper (seed
 * 004): {@code constant}, {@code bigtable}, {@code exploring}, {@code minlatency},
 * {@code binomial}, {@code prefix} and {@code concurrent}. Names and parameters are pinned:
 * XML and the CLI use them.
 */
public final class StackPolicyFactories {
    private StackPolicyFactories() {
    }

    private static PolicyParameter k() {
        return PolicyParameter.ofInt("k", 5, 1, 100, "most components that may exist");
    }

    /** {@code constant}. */
    public static final class Constant implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "constant";
        }

        @Override
        public String description() {
            return "below k components add the flush, else merge it with all k (AsterixDB before 0.9.4)";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(k());
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new ConstantPolicy(p.getInt("k"));
        }
    }

    /** {@code bigtable}. */
    public static final class Bigtable implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "bigtable";
        }

        @Override
        public String description() {
            return "at k components merge the flush with the fewest newest so each is longer than all newer ones";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(k());
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new BigtablePolicy(p.getInt("k"));
        }
    }

    /** {@code exploring}. */
    public static final class Exploring implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "exploring";
        }

        @Override
        public String description() {
            return "HBase's default: merge the best window of similar-size components";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(k(),
                    PolicyParameter.ofDouble("lambda", 1.2, 0.01, 1000, "largest at most lambda x the others"),
                    PolicyParameter.ofInt("min-components", 2, 2, 1000, "smallest window"),
                    PolicyParameter.ofInt("max-components", 10, 2, 1000, "largest window"));
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new ExploringPolicy(p.getInt("k"), p.getDouble("lambda"), p.getInt("min-components"),
                    p.getInt("max-components"));
        }
    }

    /** {@code minlatency}. */
    public static final class MinLatency implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "minlatency";
        }

        @Override
        public String description() {
            return "Mathieu et al.'s static schedule with optimal worst-case write amplification";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(k());
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new StaticSchedulePolicy(p.getInt("k"), false);
        }
    }

    /** {@code binomial}. */
    public static final class Binomial implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "binomial";
        }

        @Override
        public String description() {
            return "Mathieu et al.'s static schedule, fewer components than MinLatency before ~4^k flushes";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(k());
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new StaticSchedulePolicy(p.getInt("k"), true);
        }
    }

    /** {@code prefix}. */
    public static final class Prefix implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "prefix";
        }

        @Override
        public String description() {
            return "AsterixDB's prefix policy: merge runs of small newest components";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(
                    PolicyParameter.ofBytes("max-mergable-component-size", 1L << 30, 1, Long.MAX_VALUE,
                            "components larger than this are never merged"),
                    PolicyParameter.ofInt("max-tolerance-component-count", 5, 2, 10_000,
                            "merge once this many small components exist"));
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new PrefixPolicy(p.getLong("max-mergable-component-size"), p.getInt("max-tolerance-component-count"));
        }
    }

    /** {@code concurrent}. */
    public static final class Concurrent implements MergePolicyFactory {
        @Override
        public String module() {
            return "lsm-policies";
        }

        @Override
        public String name() {
            return "concurrent";
        }

        @Override
        public String description() {
            return "AsterixDB's default: concurrent merges of newest windows, writers wait at the maximum count";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of(
                    PolicyParameter.ofInt("min-merge-count", 3, 2, 1000, "smallest merge"),
                    PolicyParameter.ofInt("max-merge-count", 10, 2, 1000, "largest merge"),
                    PolicyParameter.ofInt("max-component-count", 30, 2, 100_000, "writers wait at this many components"),
                    PolicyParameter.ofDouble("size-ratio", 1.2, 0.01, 1000, "oldest at most this x the younger ones"));
        }

        @Override
        public MergePolicy create(PolicyParameters p) {
            return new ConcurrentPolicy(p.getInt("min-merge-count"), p.getInt("max-merge-count"),
                    p.getInt("max-component-count"), p.getDouble("size-ratio"));
        }
    }
}
