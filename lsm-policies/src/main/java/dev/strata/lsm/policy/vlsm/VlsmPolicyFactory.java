package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/** Registers {@code vlsm}: vLSM's overlap-aware level 1 (seed 002) with the paper's parameters. */
public final class VlsmPolicyFactory implements MergePolicyFactory {
    /** Level-0 SSTs at which writers stop: RocksDB's level0_slowdown_writes_trigger (the paper gives none). */
    static final int DEFAULT_L0_MAX_FILES = 20;

    @Override
    public String name() {
        return "vlsm";
    }

    @Override
    public String module() {
        return "lsm-policies";
    }

    @Override
    public String description() {
        return "vLSM (seed 002): level 0 as a FIFO merged one SST at a time, overlap-aware vSSTs at level 1, a "
                + "window of good vSSTs with the least overlap into level 2, fixed-size SSTs leveled below";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of(
                PolicyParameter.ofBytes("sst-bytes", 8L << 20, 4096, 1L << 40, "S_M: SST size below level 1 and "
                        + "largest vSST (seed 002: 8 MiB; set it to the memtable size)"),
                PolicyParameter.ofInt("growth", 8, 2, 1000, "f: growth factor from level 2 down and the overlap "
                        + "limit of a good vSST (seed 002: 8)"),
                PolicyParameter.ofInt("phi", 32, 2, 100_000, "Φ: level 2's size over level 1's (seed 002: 32)"),
                PolicyParameter.ofBytes("min-vsst-bytes", 0, 0, 1L << 40, "S_m: smallest vSST; 0 = sst-bytes / "
                        + "growth (seed 002)"),
                PolicyParameter.ofInt("l0-max-files", DEFAULT_L0_MAX_FILES, 1, 10_000, "level-0 SSTs at which "
                        + "writers stop while a merge runs (not in the paper; RocksDB's slowdown trigger, 20)"),
                PolicyParameter.ofChoice("overlap", VlsmConfig.Overlap.COUNT.label(), VlsmConfig.Overlap.labels(),
                        "how a vSST's overlap with level 2 is read: count = level-2 SSTs its range intersects, good "
                        + "when <= growth (FAMILIES.md 3.1, corrected); bytes = level-2 bytes per vSST byte (the "
                        + "earlier reading, for comparison); none = no overlap rule, level-1 files cut at sst-bytes "
                        + "only (the naive control)"),
                PolicyParameter.ofBoolean("split-flush", false, "write each flush as SSTs of at most sst-bytes "
                        + "(a memtable larger than S_M, seed 002 6.2) rather than as one SST (memtable = S_M, 4.2); "
                        + "merges out of level 0 take one of them at a time, the oldest flush's first"));
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        return new VlsmPolicy(config(params));
    }

    /** min-vsst-bytes at most sst-bytes ({@link VlsmConfig}), checked once at configuration. */
    @Override
    public void validate(PolicyParameters params) {
        config(params);
    }

    private static VlsmConfig config(PolicyParameters params) {
        long sst = params.getLong("sst-bytes");
        int growth = params.getInt("growth");
        long min = params.getLong("min-vsst-bytes");
        return new VlsmConfig(sst, growth, params.getInt("phi"), min == 0 ? Math.max(1, sst / growth)
                : min, params.getInt("l0-max-files"), VlsmConfig.Overlap.parse(params.getString("overlap")),
                params.getBoolean("split-flush"));
    }
}
