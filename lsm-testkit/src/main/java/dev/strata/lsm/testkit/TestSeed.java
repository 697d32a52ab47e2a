package dev.strata.lsm.testkit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;

/**
 * The seed of a randomized test: the system property {@value #PROPERTY} when it is set (to
 * replay a failure: {@code mvn -B verify -Dstrata.test.seed=N}, with {@code -pl MODULE -am}
 * and {@code -Dtest=CLASS -Dsurefire.failIfNoSpecifiedTests=false} to narrow it), else the test's
 * own default (a fixed number or a fresh random one, as the test chooses). Every seed handed out
 * here is remembered, and {@link SeedOnFailure} adds it to the failure of the test that used it.
 */
public final class TestSeed {
    /** The one system property that fixes every randomized test's seed. */
    public static final String PROPERTY = "strata.test.seed";

    /** The seeds the current test took, newest last; cleared before each test. */
    private static final Deque<Long> USED = new ArrayDeque<>();
    private static final int KEEP = 16;

    private TestSeed() {
    }

    /** The seed {@value #PROPERTY} fixes, if it is set. */
    public static OptionalLong fixed() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROPERTY + " must be a long, not '" + value + "'", e);
        }
    }

    /** The property's seed, else {@code defaultSeed}; remembered for the failure report. */
    public static long orDefault(long defaultSeed) {
        return use(fixed().orElse(defaultSeed));
    }

    /** The property's seed, else a fresh random one; remembered for the failure report. */
    public static long orRandom() {
        return use(fixed().orElseGet(() -> new Random().nextLong()));
    }

    /** Remembers a seed a test made itself (e.g. one of several it runs); returns it. */
    public static long use(long seed) {
        synchronized (USED) {
            USED.remove(seed);
            USED.addLast(seed);
            while (USED.size() > KEEP) {
                USED.removeFirst();
            }
        }
        return seed;
    }

    /** The seeds remembered since the last {@link #clear()}, oldest first. */
    static List<Long> used() {
        synchronized (USED) {
            return new ArrayList<>(USED);
        }
    }

    static void clear() {
        synchronized (USED) {
            USED.clear();
        }
    }
}
