package dev.strata.lsm.testkit;

/**
 * The size of a randomized or long-running test: its fast-lane size times the multiplier, the
 * system property {@value #PROPERTY} (Lucene's {@code tests.multiplier}). The README's
 * {@code mvn -B verify} runs with 1; the slow lane ({@code -Pslow}) sets 3 (the parent pom's
 * {@code strata.test.multiplier}): three times each long test's fast-lane size.
 * A larger value on the command line ({@code -Dstrata.test.multiplier=N}) scales every test
 * that asks here, in either lane.
 */
public final class TestScale {
    /** The system property that holds the multiplier. */
    public static final String PROPERTY = "strata.test.multiplier";

    private TestScale() {
    }

    /** The multiplier, at least 1; 1 when the property is not set. */
    public static int multiplier() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return 1;
        }
        int m;
        try {
            m = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROPERTY + " must be a whole number, not '" + value + "'", e);
        }
        if (m < 1) {
            throw new IllegalArgumentException(PROPERTY + " must be at least 1, not " + m);
        }
        return m;
    }

    /** {@code fastLane} times the multiplier: an operation, key, round or kill count. */
    public static int scaled(int fastLane) {
        return Math.multiplyExact(fastLane, multiplier());
    }

    /** {@code fastLane} times the multiplier: a count or a duration in some unit. */
    public static long scaled(long fastLane) {
        return Math.multiplyExact(fastLane, (long) multiplier());
    }

    /** {@code fastLane} times the multiplier: a duration such as minutes. */
    public static double scaled(double fastLane) {
        return fastLane * multiplier();
    }

    /**
     * {@code fastLane} times the multiplier, but never more than {@code max}: for sizes whose
     * full-size run is fixed (e.g. one seed per registered policy, or a paper's parameters).
     */
    public static int scaled(int fastLane, int max) {
        return (int) Math.min(max, (long) fastLane * multiplier());
    }
}
