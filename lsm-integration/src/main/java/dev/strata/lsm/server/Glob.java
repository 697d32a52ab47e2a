package dev.strata.lsm.server;

/**
 * Redis-style glob patterns over bytes ({@code *}, {@code ?}, {@code [abc]}, {@code [a-z]},
 * {@code [^a]}, {@code \} escapes), as SCAN's MATCH takes them; a pattern whose only special
 * character is one trailing {@code *} is a prefix, and SCAN seeks to it instead of filtering.
 */
final class Glob {
    private final byte[] pattern;
    private final byte[] literalPrefix;

    Glob(byte[] pattern) {
        this.pattern = pattern.clone();
        this.literalPrefix = prefixOf(pattern);
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
        return java.util.Arrays.copyOf(p, n);
    }

    boolean matches(byte[] s) {
        return match(pattern, 0, s, 0);
    }

    private static boolean match(byte[] p, int pi, byte[] s, int si) {
        while (pi < p.length) {
            byte c = p[pi];
            if (c == '*') {
                while (pi + 1 < p.length && p[pi + 1] == '*') {
                    pi++;
                }
                if (pi + 1 == p.length) {
                    return true;
                }
                for (int k = si; k <= s.length; k++) {
                    if (match(p, pi + 1, s, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (si >= s.length) {
                return false;
            }
            if (c == '?') {
                pi++;
                si++;
            } else if (c == '[') {
                int end = pi + 1;
                boolean negate = end < p.length && p[end] == '^';
                if (negate) {
                    end++;
                }
                boolean hit = false;
                int b = s[si] & 0xff;
                while (end < p.length && p[end] != ']') {
                    if (p[end] == '\\' && end + 1 < p.length) {
                        end++;
                        hit |= (p[end] & 0xff) == b;
                        end++;
                    } else if (end + 2 < p.length && p[end + 1] == '-' && p[end + 2] != ']') {
                        int lo = p[end] & 0xff;
                        int hi = p[end + 2] & 0xff;
                        hit |= Math.min(lo, hi) <= b && b <= Math.max(lo, hi);
                        end += 3;
                    } else {
                        hit |= (p[end] & 0xff) == b;
                        end++;
                    }
                }
                if (hit == negate) {
                    return false;
                }
                pi = Math.min(end + 1, p.length);
                si++;
            } else {
                if (c == '\\' && pi + 1 < p.length) {
                    pi++;
                    c = p[pi];
                }
                if (c != s[si]) {
                    return false;
                }
                pi++;
                si++;
            }
        }
        return si == s.length;
    }
}
