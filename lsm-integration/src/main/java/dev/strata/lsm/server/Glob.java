package dev.strata.lsm.server;

import java.util.Arrays;

/**
 * Redis-style glob patterns over bytes ({@code *}, {@code ?}, {@code [abc]}, {@code [a-z]},
 * {@code [^a]}, {@code \} escapes), as SCAN's MATCH takes them; a pattern whose only special
 * character is one trailing {@code *} is a prefix, and SCAN seeks to it instead of filtering.
 *
 * <p>Matching takes at most (key length + 1) x (pattern tokens + 1) steps, whatever the
 * pattern: the pattern is compiled once into tokens that each match exactly one byte,
 * separated by stars, and the matcher backtracks only to the last star seen (a later star
 * can place everything an earlier one could). A recursive matcher is exponential in the
 * number of stars: {@code *a*a*a*a*a*a*a*a*a*a*b} against 900 {@code a}s would never end
 * (Redis's CVE-2022-36021). {@link #steps()} counts the work done, so that a command
 * matching many keys can stop at a budget and let other clients run.
 */
final class Glob {
    private static final int STAR = -1;
    private static final int ANY = -2;
    private static final int CLASS = -3;

    private final byte[] pattern;
    private final byte[] literalPrefix;
    /** Per token: a byte value (0 to 255), {@link #STAR}, {@link #ANY} or {@link #CLASS}. */
    private final int[] kinds;
    /** For a {@link #CLASS} token, the 256 bytes it matches; null for the others. */
    private final long[][] classes;
    private long steps;

    Glob(byte[] pattern) {
        this.pattern = pattern.clone();
        this.literalPrefix = prefixOf(pattern);
        int[] k = new int[pattern.length];
        long[][] c = new long[pattern.length][];
        int n = 0;
        int pi = 0;
        while (pi < pattern.length) {
            byte b = pattern[pi];
            if (b == '*') {
                if (n == 0 || k[n - 1] != STAR) {
                    k[n++] = STAR;
                }
                pi++;
            } else if (b == '?') {
                k[n++] = ANY;
                pi++;
            } else if (b == '[') {
                long[] set = new long[4];
                pi = parseClass(pattern, pi + 1, set);
                c[n] = set;
                k[n++] = CLASS;
            } else {
                if (b == '\\' && pi + 1 < pattern.length) {
                    pi++;
                    b = pattern[pi];
                }
                k[n++] = b & 0xff;
                pi++;
            }
        }
        this.kinds = Arrays.copyOf(k, n);
        this.classes = Arrays.copyOf(c, n);
    }

    /**
     * Reads a class body starting after its {@code [} into {@code set}; returns the index after
     * its {@code ]} (a class left open runs to the end of the pattern).
     */
    private static int parseClass(byte[] p, int end, long[] set) {
        boolean negate = end < p.length && p[end] == '^';
        if (negate) {
            end++;
        }
        while (end < p.length && p[end] != ']') {
            if (p[end] == '\\' && end + 1 < p.length) {
                end++;
                add(set, p[end] & 0xff, p[end] & 0xff);
                end++;
            } else if (end + 2 < p.length && p[end + 1] == '-' && p[end + 2] != ']') {
                int lo = p[end] & 0xff;
                int hi = p[end + 2] & 0xff;
                add(set, Math.min(lo, hi), Math.max(lo, hi));
                end += 3;
            } else {
                add(set, p[end] & 0xff, p[end] & 0xff);
                end++;
            }
        }
        if (negate) {
            for (int i = 0; i < set.length; i++) {
                set[i] = ~set[i];
            }
        }
        return Math.min(end + 1, p.length);
    }

    private static void add(long[] set, int lo, int hi) {
        for (int b = lo; b <= hi; b++) {
            set[b >>> 6] |= 1L << b;
        }
    }

    /** The keys every match starts with (empty when the pattern starts with a wildcard). */
    byte[] literalPrefix() {
        return literalPrefix.clone();
    }

    /** Whether the pattern is exactly a literal prefix followed by one {@code *}. */
    boolean isPrefixOnly() {
        return literalPrefix.length == pattern.length - 1 && pattern[pattern.length - 1] == '*'
                && (pattern.length < 2 || pattern[pattern.length - 2] != '\\');
    }

    private static byte[] prefixOf(byte[] p) {
        int n = 0;
        while (n < p.length && p[n] != '*' && p[n] != '?' && p[n] != '[' && p[n] != '\\') {
            n++;
        }
        return Arrays.copyOf(p, n);
    }

    /** Steps taken by every {@link #matches} call so far (a measure of the work done). */
    long steps() {
        return steps;
    }

    boolean matches(byte[] s) {
        int ti = 0;
        int si = 0;
        int starToken = -1;
        int starFrom = 0;
        long taken = 0;
        try {
            while (si < s.length) {
                taken++;
                if (ti < kinds.length) {
                    int kind = kinds[ti];
                    if (kind == STAR) {
                        starToken = ti++;
                        starFrom = si;
                        continue;
                    }
                    if (matchesOne(ti, s[si] & 0xff)) {
                        ti++;
                        si++;
                        continue;
                    }
                }
                if (starToken < 0) {
                    return false;
                }
                // Let the last star take one more byte and try the rest of the pattern again.
                ti = starToken + 1;
                si = ++starFrom;
            }
            while (ti < kinds.length && kinds[ti] == STAR) {
                ti++;
            }
            return ti == kinds.length;
        } finally {
            steps += taken;
        }
    }

    private boolean matchesOne(int ti, int b) {
        int kind = kinds[ti];
        if (kind >= 0) {
            return kind == b;
        }
        if (kind == ANY) {
            return true;
        }
        return (classes[ti][b >>> 6] & (1L << b)) != 0;
    }
}
