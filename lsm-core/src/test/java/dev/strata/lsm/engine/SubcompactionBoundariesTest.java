package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.TableFences;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where a merge is split into subcompactions ({@link Subcompactions#boundaries}, issue 36): at
 * input tables' starts, into pieces of about equal input bytes as the tables' fences place them,
 * no more pieces than asked for and none smaller than asked for.
 */
class SubcompactionBoundariesTest {
    private static Subcompactions.Input uniform(String min, String max, long bytes) {
        return new Subcompactions.Input(min.getBytes(UTF_8), bytes, TableFences.uniform(min.getBytes(UTF_8),
                max.getBytes(UTF_8)));
    }

    private static List<String> strings(List<byte[]> keys) {
        return keys.stream().map(k -> new String(k, UTF_8)).toList();
    }

    @Test
    void boundariesSplitTheInputBytesEvenlyAtTableStarts() {
        List<Subcompactions.Input> level1 = new ArrayList<>();
        for (char c = 'a'; c <= 'h'; c++) {
            level1.add(uniform(c + "0", c + "9", 100));
        }
        assertEquals(List.of("c0", "e0", "g0"), strings(Subcompactions.boundaries(level1, 4, 100)));
        assertEquals(List.of("e0"), strings(Subcompactions.boundaries(level1, 2, 100)));
        assertEquals(List.of("c0", "e0", "g0"), strings(Subcompactions.boundaries(level1, 4, 200)));
        assertEquals(List.of("d0", "g0"), strings(Subcompactions.boundaries(level1, 4, 250)),
                "pieces of at least 250 bytes: three");
        assertEquals(List.of(), Subcompactions.boundaries(level1, 1, 1), "subcompactions 1: never split");
        assertEquals(List.of(), Subcompactions.boundaries(level1, 4, 500), "under two pieces' worth: not split");
        assertEquals(7, Subcompactions.boundaries(level1, 64, 1).size(), "at most one piece per table start");
    }

    @Test
    void boundariesWeighTablesThatSpanTheKeySpace() {
        // Level 0's runs span every key: their bytes count where their fences put them, not at their start.
        List<Subcompactions.Input> in = new ArrayList<>();
        in.add(uniform("a0", "d9", 400));
        in.add(uniform("a0", "d9", 400));
        in.add(uniform("a0", "b9", 100));
        in.add(uniform("c0", "d9", 100));
        List<String> b = strings(Subcompactions.boundaries(in, 2, 1));
        assertEquals(List.of("c0"), b, "more than half of the bytes lie below c0 (the spanning runs' share by their fences)");
        // A skewed input: almost all bytes in the first table; the boundary cannot go below its end.
        List<Subcompactions.Input> skew = List.of(uniform("a0", "a9", 1000), uniform("b0", "b9", 10),
                uniform("c0", "c9", 10));
        assertEquals(List.of("b0"), strings(Subcompactions.boundaries(skew, 4, 1)),
                "one boundary: every later start holds less than a quarter more");
    }
}
