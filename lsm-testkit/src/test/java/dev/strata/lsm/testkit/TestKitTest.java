package dev.strata.lsm.testkit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.reflect.Proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The size multiplier and the seed property as the tests of every module read them. */
class TestKitTest {
    private String multiplier;
    private String seed;

    @BeforeEach
    void save() {
        multiplier = System.getProperty(TestScale.PROPERTY);
        seed = System.getProperty(TestSeed.PROPERTY);
        TestSeed.clear();
    }

    @AfterEach
    void restore() {
        restore(TestScale.PROPERTY, multiplier);
        restore(TestSeed.PROPERTY, seed);
        TestSeed.clear();
    }

    private static void restore(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }

    @Test
    void sizesAreTheFastLaneSizeTimesTheMultiplier() {
        System.clearProperty(TestScale.PROPERTY);
        assertEquals(1, TestScale.multiplier());
        assertEquals(300, TestScale.scaled(300));
        System.setProperty(TestScale.PROPERTY, "10");
        assertEquals(3_000, TestScale.scaled(300));
        assertEquals(30_000_000_000L, TestScale.scaled(3_000_000_000L));
        assertEquals(1.0, TestScale.scaled(0.1), 1e-12);
        assertEquals(6, TestScale.scaled(1, 6), "capped at the full size");
        System.setProperty(TestScale.PROPERTY, "0");
        assertThrows(IllegalArgumentException.class, TestScale::multiplier);
        System.setProperty(TestScale.PROPERTY, "many");
        assertThrows(IllegalArgumentException.class, TestScale::multiplier);
    }

    @Test
    void theSeedPropertyFixesEverySeedAndTheFailureNamesIt() {
        System.clearProperty(TestSeed.PROPERTY);
        System.setProperty(TestScale.PROPERTY, "1");
        assertNull(SeedOnFailure.note("t"), "no seed taken, nothing to name");
        assertEquals(42, TestSeed.orDefault(42));
        long random = TestSeed.orRandom();
        assertEquals("t failed with seed [42, " + random + "]; replay with -Dstrata.test.seed=" + random,
                SeedOnFailure.note("t"));

        TestSeed.clear();
        System.setProperty(TestSeed.PROPERTY, "-7");
        System.setProperty(TestScale.PROPERTY, "10");
        assertEquals(-7, TestSeed.orDefault(42));
        assertEquals(-7, TestSeed.orRandom());
        assertEquals("t failed with seed -7; replay with -Dstrata.test.seed=-7 -Dstrata.test.multiplier=10",
                SeedOnFailure.note("t"));
        System.setProperty(TestSeed.PROPERTY, "x");
        assertThrows(IllegalArgumentException.class, TestSeed::fixed);
    }

    /** An extension context that answers only its display name. */
    private static ExtensionContext named(String name) {
        return (ExtensionContext) Proxy.newProxyInstance(TestKitTest.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getDisplayName")) {
                        return name;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aFailureGetsTheNoteAndIsRethrownUnchanged() {
        TestSeed.use(99);
        AssertionError failure = new AssertionError("boom");
        AssertionError thrown = assertThrows(AssertionError.class,
                () -> new SeedOnFailure().handleTestExecutionException(named("history"), failure));
        assertEquals(failure, thrown);
        assertEquals(1, thrown.getSuppressed().length);
        assertTrue(thrown.getSuppressed()[0].getMessage().contains("-Dstrata.test.seed=99"),
                thrown.getSuppressed()[0].getMessage());
    }
}
