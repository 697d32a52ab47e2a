package dev.strata.lsm.sstable;

/**
 * Shape of an SSTable: page size and bloom filter density.
 *
 * @param pageSize bytes per page, a power of two from 4 KiB to 64 KiB
 * @param bloomBitsPerKey bloom filter bits per distinct user key, 0 (no filter) to 64
 */
public record TableOptions(int pageSize, int bloomBitsPerKey) {
    public static final int MIN_PAGE_SIZE = 4 * 1024;
    public static final int MAX_PAGE_SIZE = 64 * 1024;
    public static final int DEFAULT_PAGE_SIZE = 4 * 1024;
    public static final int DEFAULT_BLOOM_BITS_PER_KEY = 10;
    /** Largest value accepted; larger values do not fit a Java array with headroom. */
    public static final int MAX_VALUE_SIZE = 1 << 30;

    public TableOptions {
        if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two from "
                    + MIN_PAGE_SIZE + " to " + MAX_PAGE_SIZE + " bytes, got " + pageSize);
        }
        if (bloomBitsPerKey < 0 || bloomBitsPerKey > 64) {
            throw new IllegalArgumentException("bloom bits per key must be 0 to 64, got " + bloomBitsPerKey);
        }
    }

    /** 4 KiB pages, 10 bloom bits per key. */
    public static TableOptions defaults() {
        return new TableOptions(DEFAULT_PAGE_SIZE, DEFAULT_BLOOM_BITS_PER_KEY);
    }

    /**
     * Largest user key accepted: {@code pageSize / 4 - 32} bytes (992 for 4 KiB pages). It
     * guarantees that every interior page, whose lowest level stores two keys per child,
     * holds at least two children.
     */
    public int maxKeySize() {
        return maxKeySize(pageSize);
    }

    /** {@link #maxKeySize()} for a given page size. */
    public static int maxKeySize(int pageSize) {
        return pageSize / 4 - 32;
    }
}
