package dev.strata.lsm;

import java.util.Arrays;

/**
 * Maps a key to the prefix that tables add to their bloom filter, so that a prefix scan
 * ({@link LsmStore#scanPrefix(byte[])}) can skip a table whose filter says no key with the
 * prefix is in it. Like RocksDB's {@code SliceTransform} ({@code NewFixedPrefixTransform}),
 * but only the fixed-length kind exists: {@link #fixed(int) fixed:N} takes a key's first N
 * bytes.
 *
 * <p>Domain: a key shorter than N bytes has no prefix; its prefix is not added to any
 * filter (the key itself still is, for point gets). A prefix scan for a prefix of N bytes or
 * more only ever matches keys of N bytes or more, so it can trust the filter; a scan for a
 * shorter prefix reads every table whose key bounds overlap it.
 *
 * <p>A table records the {@link #name() name} of the extractor that built its filter (docs/
 * format.md, footer), and a read trusts the filter for prefixes only when that name equals
 * the store's current extractor: a store reopened with another extractor, or without one,
 * reads such tables in full. Immutable and thread safe.
 */
public final class PrefixExtractor {
    /** Largest N of {@code fixed:N}. */
    public static final int MAX_LENGTH = 255;

    private final int length;

    private PrefixExtractor(int length) {
        this.length = length;
    }

    /**
     * The extractor taking a key's first {@code n} bytes (1 to {@value #MAX_LENGTH}).
     *
     * @param n the prefix length in bytes
     * @return an extractor of {@code n}-byte prefixes
     * @throws IllegalArgumentException if {@code n} is out of range
     */
    public static PrefixExtractor fixed(int n) {
        if (n < 1 || n > MAX_LENGTH) {
            throw new IllegalArgumentException("a fixed prefix length must be 1 to " + MAX_LENGTH + " bytes, got " + n);
        }
        return new PrefixExtractor(n);
    }

    /**
     * Parses the XML form, {@code fixed:N}.
     *
     * @param spec the text, e.g. {@code fixed:8}
     * @return the extractor it names
     * @throws IllegalArgumentException naming the problem for an unknown kind or a bad N
     */
    public static PrefixExtractor parse(String spec) {
        int colon = spec.indexOf(':');
        String kind = colon < 0 ? spec : spec.substring(0, colon);
        if (!kind.equals("fixed")) {
            throw new IllegalArgumentException("unknown prefix extractor '" + spec + "': expected fixed:N");
        }
        if (colon < 0) {
            throw new IllegalArgumentException("prefix extractor '" + spec + "' has no length: expected fixed:N");
        }
        String n = spec.substring(colon + 1);
        int length;
        try {
            length = Integer.parseInt(n);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("prefix extractor '" + spec + "': '" + n
                    + "' is not a length; expected fixed:N with N from 1 to " + MAX_LENGTH);
        }
        return fixed(length);
    }

    /**
     * N: the prefix length.
     *
     * @return the prefix length in bytes
     */
    public int length() {
        return length;
    }

    /**
     * Whether {@code key} has a prefix (is at least N bytes long).
     *
     * @param key a key
     * @return true when {@code key} is at least N bytes long
     */
    public boolean inDomain(byte[] key) {
        return key.length >= length;
    }

    /**
     * The prefix of {@code key}, its first N bytes; {@code key} must be {@linkplain #inDomain in
     * the domain}.
     *
     * @param key a key in the domain
     * @return a new array of the key's first N bytes
     */
    public byte[] prefix(byte[] key) {
        if (!inDomain(key)) {
            throw new IllegalArgumentException("a key of " + key.length + " bytes has no " + name() + " prefix");
        }
        return Arrays.copyOf(key, length);
    }

    /**
     * The name tables record and XML uses: {@code fixed:N}.
     *
     * @return the extractor's name
     */
    public String name() {
        return "fixed:" + length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PrefixExtractor p && p.length == length;
    }

    @Override
    public int hashCode() {
        return length;
    }

    @Override
    public String toString() {
        return name();
    }
}
