package dev.strata.lsm.policy.vlsm;

/**
 * The parameters of {@code vlsm} (FAMILIES.md §3.1, seed 002).
 *
 * @param sstBytes S_M: the SST size below level 1, the largest vSST and (in the paper) the memtable size
 * @param growth f: the growth factor from level 2 down, and the overlap ratio that makes a vSST good
 * @param phi Φ: the size ratio of level 2 to level 1
 * @param minVsstBytes S_m: the smallest vSST (paper: S_M / f)
 * @param l0MaxFiles level-0 SSTs at which writers stop while a merge runs (not in the paper)
 */
public record VlsmConfig(long sstBytes, int growth, int phi, long minVsstBytes, int l0MaxFiles) {
    public VlsmConfig {
        if (sstBytes < 1) {
            throw new IllegalArgumentException("vlsm: sst-bytes must be positive, got " + sstBytes);
        }
        if (growth < 2 || phi < 2) {
            throw new IllegalArgumentException("vlsm: growth (" + growth + ") and phi (" + phi + ") must be >= 2");
        }
        if (minVsstBytes < 1 || minVsstBytes > sstBytes) {
            throw new IllegalArgumentException("vlsm: min-vsst-bytes must be in [1, sst-bytes=" + sstBytes + "], got "
                    + minVsstBytes);
        }
        if (l0MaxFiles < 1) {
            throw new IllegalArgumentException("vlsm: l0-max-files must be >= 1, got " + l0MaxFiles);
        }
    }

    /** Level 1's capacity: f · S_M. */
    long level1Bytes() {
        return growth * sstBytes;
    }

    /** Capacity of level {@code i} >= 1: f·S_M at 1, Φ times that at 2, f times more per level below. */
    long capacity(int level) {
        double c = level1Bytes();
        if (level >= 2) {
            c *= phi * Math.pow(growth, level - 2);
        }
        return c >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) c;
    }
}
