package dev.strata.lsm.policy.sim;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link FlushLengths.Spec}: a flush-length spec is parsed and checked once, and a bad one is refused by name. */
class FlushLengthsSpecTest {
    @TempDir
    Path dir;

    @Test
    void goodSpecsMakeTheirLengths() throws Exception {
        FlushLengths uniform = FlushLengths.Spec.parse("uniform").lengths(7);
        assertEquals(1, uniform.length(1));
        assertEquals(1, uniform.maxLength());
        FlushLengths random = FlushLengths.Spec.parse("random:3:5").lengths(7);
        for (long t = 1; t <= 200; t++) {
            long l = random.length(t);
            assertTrue(l >= 3 && l <= 5, "length " + l);
        }
        assertEquals(5, random.maxLength());
        assertEquals("random:3:5", random.spec());
        Path f = dir.resolve("lengths.txt");
        Files.writeString(f, "# comment\n4\n\n9\n2\n");
        FlushLengths file = FlushLengths.Spec.parse("file:" + f).lengths(0);
        assertEquals(List.of(4L, 9L, 2L, 4L), List.of(file.length(1), file.length(2), file.length(3), file.length(4)));
        assertEquals(9, file.maxLength());
    }

    @Test
    void theSameSeedGivesTheSameRandomLengths() {
        FlushLengths.Spec spec = FlushLengths.Spec.parse("random:1:1000");
        FlushLengths a = spec.lengths(42);
        FlushLengths b = spec.lengths(42);
        for (long t = 1; t <= 50; t++) {
            assertEquals(a.length(t), b.length(t));
        }
    }

    @Test
    void aBadSpecIsRefusedNamingTheBadValue() throws Exception {
        assertRefused("gaussian", "'gaussian'", "expected uniform, random:A:B or file:PATH");
        assertRefused("random:1", "'random:1'", "random:A:B");
        assertRefused("random:1:2:3", "'random:1:2:3'", "random:A:B");
        assertRefused("random:x:4", "A 'x' is not an integer");
        assertRefused("random:1:4k", "B '4k' is not an integer");
        assertRefused("random:5:1", "'random:5:1'", "1 <= A <= B, got A = 5 and B = 1");
        assertRefused("random:0:3", "1 <= A <= B, got A = 0");
        Path f = dir.resolve("bad.txt");
        Files.writeString(f, "4\nfour\n");
        assertRefused("file:" + f, "'four' is not an integer");
        Files.writeString(f, "4\n-1\n");
        assertRefused("file:" + f, "bad flush length '-1'", "non-negative");
        Files.writeString(f, "# nothing\n\n");
        assertRefused("file:" + f, "no flush lengths in " + f);
        assertThrows(UncheckedIOException.class, () -> FlushLengths.Spec.parse("file:" + dir.resolve("missing")));
    }

    private static void assertRefused(String spec, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlushLengths.Spec.parse(spec));
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "'" + e.getMessage() + "' should contain '" + p + "'");
        }
    }
}
