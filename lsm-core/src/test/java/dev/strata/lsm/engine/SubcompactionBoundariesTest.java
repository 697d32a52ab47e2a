package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.TableFences;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where a merge is split into subcompactions ({@link Subcompactions#boundaries}, issue 36): at
 * input tables' starts, into pieces of about equal input data as the tables' fences place it,
 * no more pieces than asked for and none smaller than asked for, a table weighed by its data
 * (entries, or its stored bytes when compressed below them), never by its page-padded file.
 */
class SubcompactionBoundariesTest {
    /**
     * A table of {@code bytes} of data spread evenly over [min, max], in a file a few pages
     * larger (leaf padding, index, bloom, footer), as an uncompressed table's is.
     */
    private static Subcompactions.Input uniform(String min, String max, long bytes) {
        long entries = bytes / 50;
        return new Subcompactions.Input(min.getBytes(UTF_8), bytes + 3 * 4096, entries,
                bytes - entries * Subcompactions.ENTRY_OVERHEAD_BYTES,
                TableFences.uniform(min.getBytes(UTF_8), max.getBytes(UTF_8)));
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

    @Test
    void tablesOfAFewEntriesWeighTheirDataNotTheirPages() {
        // Twelve one-key flushes: each file is three 4 KiB pages, more than the 8 KiB output file
        // size, but all their data is a few hundred bytes: one output file, so no split (by their
        // file sizes, 144 KiB, they were split into four pieces; session 19's DefaultPolicyTest).
        List<Subcompactions.Input> flushes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String key = String.format("k%06d", i);
            flushes.add(new Subcompactions.Input(key.getBytes(UTF_8), 3 * 4096, 1, 7 + 20,
                    TableFences.uniform(key.getBytes(UTF_8), key.getBytes(UTF_8))));
        }
        assertEquals(List.of(), Subcompactions.boundaries(flushes, 4, Subcompactions.minPieceBytes(8192)));
        assertEquals(List.of(), Subcompactions.boundaries(flushes, 64, 1_000), "under 1,000 bytes of data in all");
        assertEquals(27 + Subcompactions.ENTRY_OVERHEAD_BYTES, flushes.get(0).dataBytes());
    }

    @Test
    void aCompressedTableWeighsItsStoredBytes() {
        // Entries of 1,000 bytes stored in 400 (compressed): what its entries take in an output of
        // the same codec is about the 400.
        Subcompactions.Input compressed = new Subcompactions.Input("a".getBytes(UTF_8), 400, 10, 920,
                TableFences.uniform("a".getBytes(UTF_8), "b".getBytes(UTF_8)));
        assertEquals(400, compressed.dataBytes());
        Subcompactions.Input plain = new Subcompactions.Input("a".getBytes(UTF_8), 4096 + 1000, 10, 920,
                TableFences.uniform("a".getBytes(UTF_8), "b".getBytes(UTF_8)));
        assertEquals(1000, plain.dataBytes());
    }

    @Test
    void aPieceHoldsAtLeastTwoOutputFilesOfData() {
        assertEquals(2 * 8192, Subcompactions.minPieceBytes(8192));
        assertEquals(Long.MAX_VALUE, Subcompactions.minPieceBytes(Long.MAX_VALUE), "no file size: never split");
        // Data for three output files of 1,000 bytes: never split; for four: two pieces.
        List<Subcompactions.Input> three = List.of(uniform("a0", "a9", 1000), uniform("b0", "b9", 1000),
                uniform("c0", "c9", 1000));
        assertEquals(List.of(), Subcompactions.boundaries(three, 4, Subcompactions.minPieceBytes(1000)));
        List<Subcompactions.Input> four = new ArrayList<>(three);
        four.add(uniform("d0", "d9", 1000));
        assertEquals(List.of("c0"), strings(Subcompactions.boundaries(four, 4, Subcompactions.minPieceBytes(1000))));
    }
}
