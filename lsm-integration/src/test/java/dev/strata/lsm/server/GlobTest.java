package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redis glob semantics, and matching that takes linear time whatever the pattern. */
class GlobTest {
    private static boolean matches(String pattern, String s) {
        return new Glob(pattern.getBytes(StandardCharsets.ISO_8859_1)).matches(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void redisGlobSemantics() {
        assertTrue(matches("*", ""));
        assertTrue(matches("*", "abc"));
        assertTrue(matches("a*", "abc"));
        assertFalse(matches("a*", "bac"));
        assertTrue(matches("*c", "abc"));
        assertTrue(matches("a*c", "ac"));
        assertTrue(matches("a*b*c", "axxbyyc"));
        assertFalse(matches("a*b*c", "axxbyy"));
        assertTrue(matches("h?llo", "hello"));
        assertFalse(matches("h?llo", "hllo"));
        assertTrue(matches("h[ae]llo", "hallo"));
        assertFalse(matches("h[ae]llo", "hillo"));
        assertTrue(matches("h[^e]llo", "hallo"));
        assertFalse(matches("h[^e]llo", "hello"));
        assertTrue(matches("h[a-b]llo", "hbllo"));
        assertTrue(matches("h[b-a]llo", "hallo"));
        assertTrue(matches("\\*x", "*x"));
        assertFalse(matches("\\*x", "ax"));
        assertTrue(matches("[\\]]", "]"));
        assertTrue(matches("*[0-9]", "key:7"));
        assertFalse(matches("*[0-9]", "key:x"));
        assertTrue(matches("*?*?", "ab"));
        assertFalse(matches("*?*?", "a"));
        assertTrue(matches("a**b", "ab"));
        assertTrue(matches("user:*:name", "user:1:2:name"));
        assertFalse(matches("abc", "abcd"));
    }

    /**
     * The pattern of CVE-2022-36021 over a key of 900 {@code a}s: a backtracking matcher tries
     * every way to place ten stars (about 900^10 steps); a linear one answers at once. The
     * timeout only stops the test if matching is exponential; no figure is asserted.
     */
    @Test
    void pathologicalPatternsMatchInPolynomialTime() {
        String key = "a".repeat(900);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertFalse(matches("*a*a*a*a*a*a*a*a*a*a*b", key));
            assertTrue(matches("*a*a*a*a*a*a*a*a*a*a*", key));
            assertFalse(matches("*?*?*?*?*?*?*?*?*?*?*b", key));
            assertFalse(matches("*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*b", key));
        });
    }
}
