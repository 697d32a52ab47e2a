package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policy.PolicyParameterException;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The parameters of {@code vlsm} (FAMILIES.md §3.1, seed 002).
 *
 * @param sstBytes S_M: the SST size below level 1, the largest vSST and (in the paper) the memtable size
 * @param growth f: the growth factor from level 2 down, and the overlap limit that makes a vSST good
 * @param phi Φ: the size ratio of level 2 to level 1
 * @param minVsstBytes S_m: the smallest vSST (paper: S_M / f)
 * @param l0MaxFiles level-0 SSTs at which writers stop while a merge runs (not in the paper)
 * @param overlap how a vSST's overlap with level 2 is read: a count of level-2 SSTs (the spec's
 *     corrected reading) or level-2 bytes per vSST byte (the earlier reading, kept for comparison),
 *     or not at all (the naive control: level-1 files cut at S_M only)
 * @param splitFlush whether a flush writes the memtable as SSTs of at most S_M (a memtable larger than
 *     S_M, the paper's §6.2 reading) rather than as one SST (memtable = S_M, §4.2 and FAMILIES.md §3.1)
 */
public record VlsmConfig(long sstBytes, int growth, int phi, long minVsstBytes, int l0MaxFiles, Overlap overlap,
                         boolean splitFlush) {

    /** How overlap with level 2 is measured (parameter {@code overlap}). */
    public enum Overlap {
        /** O = the number of level-2 SSTs whose range intersects the vSST's; good when O ≤ f. */
        COUNT("count"),
        /** The level-2 bytes the vSST's range intersects over its own bytes; good when ≤ f. */
        BYTES("bytes"),
        /**
         * No overlap rule (the naive control): level-0 → level-1 output is cut at S_M only, every
         * level-1 file counts as good for the level-1 → level-2 window.
         */
        NONE("none");

        private final String label;

        Overlap(String label) {
            this.label = label;
        }

        /** The parameter value. */
        public String label() {
            return label;
        }

        /** The parameter values, in declaration order. */
        public static List<String> labels() {
            return Arrays.stream(values()).map(Overlap::label).toList();
        }

        /** @throws IllegalArgumentException naming the allowed values */
        public static Overlap parse(String s) {
            for (Overlap o : values()) {
                if (o.label.equals(s)) {
                    return o;
                }
            }
            throw new IllegalArgumentException("vlsm: overlap must be one of " + labels() + ", got '" + s + "'");
        }
    }

    public VlsmConfig {
        if (sstBytes < 1) {
            throw new IllegalArgumentException("vlsm: sst-bytes must be positive, got " + sstBytes);
        }
        if (growth < 2 || phi < 2) {
            throw new IllegalArgumentException("vlsm: growth (" + growth + ") and phi (" + phi + ") must be >= 2");
        }
        if (minVsstBytes < 1 || minVsstBytes > sstBytes) {
            throw new PolicyParameterException("vlsm: min-vsst-bytes must be in [1, sst-bytes=" + sstBytes + "], got "
                    + minVsstBytes, "min-vsst-bytes", "sst-bytes");
        }
        if (l0MaxFiles < 1) {
            throw new IllegalArgumentException("vlsm: l0-max-files must be >= 1, got " + l0MaxFiles);
        }
        Objects.requireNonNull(overlap, "overlap");
    }

    /** The paper's configuration with overlap read as a count of level-2 SSTs. */
    public VlsmConfig(long sstBytes, int growth, int phi, long minVsstBytes, int l0MaxFiles) {
        this(sstBytes, growth, phi, minVsstBytes, l0MaxFiles, Overlap.COUNT);
    }

    /** A configuration whose flushes write one SST each. */
    public VlsmConfig(long sstBytes, int growth, int phi, long minVsstBytes, int l0MaxFiles, Overlap overlap) {
        this(sstBytes, growth, phi, minVsstBytes, l0MaxFiles, overlap, false);
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

    /**
     * Whether a vSST of {@code vsstBytes} whose range intersects {@code files} level-2 SSTs
     * holding {@code overlapBytes} is good (overlap within f in this config's reading).
     */
    boolean good(long vsstBytes, int files, long overlapBytes) {
        return switch (overlap) {
            case COUNT -> files <= growth;
            case BYTES -> overlapBytes <= (double) growth * Math.max(1, vsstBytes);
            case NONE -> true;
        };
    }
}
