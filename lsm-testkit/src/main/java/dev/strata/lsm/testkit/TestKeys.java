package dev.strata.lsm.testkit;

/**
 * Zero-padded decimal test keys, as {@code String.format(prefix + "%0" + width + "d", n)} writes
 * them, without a {@link java.util.Formatter}: the tests make millions of keys, and under the
 * fast lane's C1-only JIT {@code String.format} was a sixth of lsm-core's test CPU (a JFR profile
 * of the suite). Stateless and thread-safe.
 */
public final class TestKeys {
    private TestKeys() {
    }

    /**
     * {@code prefix} followed by {@code n} in decimal, left-padded with zeros to {@code width}
     * digits (never truncated): exactly what {@code String.format(prefix + "%0<width>d", n)} gives,
     * negative numbers included.
     *
     * @param prefix the text before the number (no format specifiers are interpreted)
     * @param n the number
     * @param width the minimum number of characters the number takes, at least 1
     * @return the key text
     */
    public static String padded(String prefix, long n, int width) {
        if (width < 1) {
            throw new IllegalArgumentException("width must be at least 1, not " + width);
        }
        if (n < 0) {
            return prefix + String.format("%0" + width + "d", n);
        }
        String digits = Long.toString(n);
        int zeros = width - digits.length();
        if (zeros <= 0) {
            return prefix.concat(digits);
        }
        StringBuilder key = new StringBuilder(prefix.length() + width).append(prefix);
        for (int i = 0; i < zeros; i++) {
            key.append('0');
        }
        return key.append(digits).toString();
    }
}
