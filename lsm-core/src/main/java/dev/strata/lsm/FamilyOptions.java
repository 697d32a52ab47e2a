package dev.strata.lsm;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of one column family: its memtable size, memtable backlog and merge policy.
 * Every option left unset takes the store's ({@link StoreConfig}); everything else (WAL, page
 * size, compression, cache, threads) is the store's. In XML:
 * {@code <family name="..."><memtable bytes="..." maxImmutable="..."/><mergePolicy name="...">...</mergePolicy></family>}
 * inside the store's document.
 *
 * <p>Immutable and thread safe; build with {@link #builder()}. Values are checked when the
 * family is created or opened ({@link StoreConfig.Builder#build} rules apply), with an
 * {@link IllegalArgumentException} or {@link ConfigException} naming the option.
 */
public final class FamilyOptions {
    private static final FamilyOptions DEFAULTS = new Builder().build();

    private final long memtableBytes;
    private final int maxImmutableMemtables;
    private final String mergePolicy;
    private final Map<String, String> mergePolicyParams;

    private FamilyOptions(Builder b) {
        this.memtableBytes = b.memtableBytes;
        this.maxImmutableMemtables = b.maxImmutableMemtables;
        this.mergePolicy = b.mergePolicy;
        this.mergePolicyParams = Map.copyOf(b.mergePolicyParams);
    }

    /**
     * Every option the store's.
     *
     * @return options that set nothing
     */
    public static FamilyOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder with no setting given: the family takes the store's.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The memtable size in bytes, or 0 for the store's.
     *
     * @return the size in bytes, or 0
     */
    public long memtableBytes() {
        return memtableBytes;
    }

    /**
     * The immutable memtable backlog, or 0 for the store's.
     *
     * @return the number of full memtables that may wait, or 0
     */
    public int maxImmutableMemtables() {
        return maxImmutableMemtables;
    }

    /**
     * The merge policy's registered name, or null for the store's (with its parameters).
     *
     * @return the policy's name, or null
     */
    public String mergePolicy() {
        return mergePolicy;
    }

    /**
     * The merge policy's parameters (empty when the policy is the store's).
     *
     * @return the parameters, name to unparsed value
     */
    public Map<String, String> mergePolicyParams() {
        return mergePolicyParams;
    }

    /**
     * The store configuration a family with these options runs with: {@code store}'s, with
     * the options set here in place of its own; checked as {@link StoreConfig.Builder#build} checks.
     *
     * @param store the store's validated configuration
     * @return the family's validated configuration
     * @throws ConfigException naming a bad value, or when these options take the store's merge
     *     policy and the store's is an instance ({@link StoreConfig.Builder#mergePolicy(dev.strata.lsm.policy.MergePolicy)})
     */
    public StoreConfig applyTo(StoreConfig store) {
        StoreConfig.Builder b = store.toBuilder();
        b.families.clear();
        if (memtableBytes != 0) {
            b.memtableBytes(memtableBytes);
        }
        if (maxImmutableMemtables != 0) {
            b.maxImmutableMemtables(maxImmutableMemtables);
        }
        if (mergePolicy != null) {
            b.mergePolicy(mergePolicy, mergePolicyParams);
        } else if (store.mergePolicyInstance() != null) {
            // One policy object serves one tree: its state and its one-call-at-a-time contract.
            throw new ConfigException("the family takes the store's merge policy, but the store's is an instance ("
                    + store.mergePolicy() + "), which serves the store's own tree only; give the family a policy by"
                    + " name (FamilyOptions.Builder.mergePolicy)");
        }
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FamilyOptions f && f.memtableBytes == memtableBytes
                && f.maxImmutableMemtables == maxImmutableMemtables && java.util.Objects.equals(f.mergePolicy, mergePolicy)
                && f.mergePolicyParams.equals(mergePolicyParams);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(memtableBytes, maxImmutableMemtables, mergePolicy, mergePolicyParams);
    }

    @Override
    public String toString() {
        return "FamilyOptions[memtableBytes=" + memtableBytes + ", maxImmutableMemtables=" + maxImmutableMemtables
                + ", mergePolicy=" + mergePolicy + " " + mergePolicyParams + "]";
    }

    /** Builds {@link FamilyOptions}; not thread safe. */
    public static final class Builder {
        private long memtableBytes;
        private int maxImmutableMemtables;
        private String mergePolicy;
        private Map<String, String> mergePolicyParams = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * The family's memtable size (0: the store's).
         *
         * @param bytes the size in bytes, or 0
         * @return this builder
         */
        public Builder memtableBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("family memtableBytes must not be negative, was " + bytes);
            }
            this.memtableBytes = bytes;
            return this;
        }

        /**
         * The family's immutable memtable backlog (0: the store's).
         *
         * @param count the number of full memtables that may wait, or 0
         * @return this builder
         */
        public Builder maxImmutableMemtables(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("family maxImmutableMemtables must not be negative, was " + count);
            }
            this.maxImmutableMemtables = count;
            return this;
        }

        /**
         * The family's merge policy by registered name, with parameters.
         *
         * @param name the policy's registered name
         * @param params its parameters, name to unparsed value (absent ones take their defaults)
         * @return this builder
         */
        public Builder mergePolicy(String name, Map<String, String> params) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("family merge policy name must not be null or blank");
            }
            this.mergePolicy = name;
            this.mergePolicyParams = new LinkedHashMap<>(params == null ? Map.of() : params);
            return this;
        }

        /**
         * The family's merge policy by registered name, default parameters.
         *
         * @param name the policy's registered name
         * @return this builder
         */
        public Builder mergePolicy(String name) {
            return mergePolicy(name, Map.of());
        }

        /**
         * The options given so far; a store's configuration checks them when it applies them (at
         * its build).
         *
         * @return the new immutable options
         */
        public FamilyOptions build() {
            return new FamilyOptions(this);
        }
    }
}
