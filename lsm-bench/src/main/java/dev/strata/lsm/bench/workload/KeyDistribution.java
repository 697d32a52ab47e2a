package dev.strata.lsm.bench.workload;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How a request workload picks the records it reads and updates. The pinned names are
 * {@code uniform}, {@code zipfian}, {@code latest} and {@code sequential}.
 */
public enum KeyDistribution {
    /** Every existing record equally likely. */
    UNIFORM("uniform"),
    /**
     * Zipfian popularity (YCSB's "scrambled zipfian"): ranks are Zipf-distributed and hashed
     * over the key space, so the popular records are spread out rather than adjacent.
     */
    ZIPFIAN("zipfian"),
    /** Zipfian over recency (YCSB's "skewed latest"): the most recently inserted records are the most popular. */
    LATEST("latest"),
    /** Records in key order, each thread starting at its own share of the key space and wrapping. */
    SEQUENTIAL("sequential");

    private final String label;

    KeyDistribution(String label) {
        this.label = label;
    }

    /** The pinned name. */
    public String label() {
        return label;
    }

    /** The pinned names of all distributions. */
    public static List<String> labels() {
        return Arrays.stream(values()).map(KeyDistribution::label).toList();
    }

    /**
     * The distribution called {@code name}.
     *
     * @throws IllegalArgumentException naming the allowed names
     */
    public static KeyDistribution parse(String name) {
        for (KeyDistribution d : values()) {
            if (d.label.equals(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown key distribution '" + name + "': choose one of " + labels());
    }

    /**
     * A chooser for worker {@code thread} of {@code threads}.
     *
     * @param random the thread's own random source
     * @param theta the zipfian skew (zipfian and latest)
     * @param recordCount the key space size when the workload starts (sequential start offsets)
     */
    public KeyChooser chooser(SplittableRandom random, double theta, int thread, int threads, long recordCount) {
        return switch (this) {
            case UNIFORM -> random::nextLong;
            case ZIPFIAN -> {
                ZipfianGenerator zipf = new ZipfianGenerator(theta, random);
                zipf.prepare(recordCount);
                yield n -> Long.remainderUnsigned(fnv64(zipf.next(n)), n);
            }
            case LATEST -> {
                ZipfianGenerator zipf = new ZipfianGenerator(theta, random);
                zipf.prepare(recordCount);
                yield n -> n - 1 - zipf.next(n);
            }
            case SEQUENTIAL -> new KeyChooser() {
                private long next = recordCount <= 0 ? 0 : recordCount / threads * thread;

                @Override
                public long next(long n) {
                    long r = Long.remainderUnsigned(next, n);
                    next = r + 1;
                    return r;
                }
            };
        };
    }

    /** 64-bit FNV-1a over the eight bytes of {@code v}, as YCSB scrambles zipfian ranks. */
    static long fnv64(long v) {
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < 8; i++) {
            h ^= v & 0xFF;
            h *= 0x100000001B3L;
            v >>>= 8;
        }
        return h;
    }
}
