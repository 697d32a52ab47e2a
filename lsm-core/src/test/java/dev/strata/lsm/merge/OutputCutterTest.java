package dev.strata.lsm.merge;

import dev.strata.lsm.merge.OutputCutter.FileBounds;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link OutputCutter}: golden cases (src/test/resources/merge/output_cutter.txt), a
 * brute-force reference compared on random inputs (seed: {@code -Dstrata.test.seed=N}), and
 * bad input.
 */
class OutputCutterTest {

    /** One scripted case: a spec, two levels, keys with sizes. */
    private record Case(String name, OutputSpec spec, List<FileBounds> align, List<FileBounds> below,
                        List<byte[]> keys, long[] sizes, String expect) {
    }

    @TestFactory
    Stream<DynamicTest> goldenCases() throws IOException {
        List<Case> cases = parseGolden();
        assertTrue(cases.size() >= 10, "golden file lost cases: " + cases.size());
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            List<Integer> starts = cut(c);
            assertEquals(c.expect(), render(c.keys(), starts), "cutter, case '" + c.name() + "'");
            assertEquals(c.expect(), render(c.keys(), reference(c)), "reference, case '" + c.name() + "'");
        }));
    }

    @Test
    void matchesTheBruteForceReferenceOnRandomInputs() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        for (int round = 0; round < 3000; round++) {
            Case c = randomCase(rnd, round);
            List<Integer> got = cut(c);
            List<Integer> want = reference(c);
            assertEquals(render(c.keys(), want), render(c.keys(), got), () -> "differs from the reference; replay with "
                    + "-Dstrata.test.seed=" + seed + " (round " + c.name() + ", spec " + c.spec() + ")");
        }
    }

    @Test
    void aSingleFileSpecNeverCuts() {
        OutputCutter cutter = new OutputCutter(OutputSpec.singleFile(), List.of(), List.of());
        cutter.fileStarted(key("a"));
        for (char ch = 'b'; ch <= 'z'; ch++) {
            assertTrue(!cutter.cutBefore(key(String.valueOf(ch)), Long.MAX_VALUE - 1));
        }
    }

    @Test
    void rejectsKeysOutOfOrder() {
        OutputCutter cutter = new OutputCutter(OutputSpec.maxFileBytes(10), List.of(), List.of());
        cutter.fileStarted(key("m"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cutter.cutBefore(key("m"), 1));
        assertTrue(e.getMessage().contains("strictly ascending"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cutter.cutBefore(key("a"), 1));
        assertTrue(cutter.cutBefore(key("n"), 10));
        cutter.fileStarted(key("n"));   // a file starts with the key its predecessor was cut before
        assertThrows(IllegalArgumentException.class, () -> cutter.fileStarted(key("b")));
    }

    @Test
    void rejectsCutBeforeAnyFileStarted() {
        OutputCutter cutter = new OutputCutter(OutputSpec.maxFileBytes(10), List.of(), List.of());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> cutter.cutBefore(key("a"), 0));
        assertTrue(e.getMessage().contains("fileStarted"), e.getMessage());
    }

    @Test
    void rejectsAnOverlappingOrUnsortedLevelBelow() {
        OutputSpec spec = OutputSpec.maxFileBytes(100).withMaxOverlapBytes(10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new OutputCutter(spec,
                List.of(), List.of(bounds("a", "d", 1), bounds("c", "f", 1))));
        assertTrue(e.getMessage().contains("not overlap"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new OutputCutter(spec, List.of(),
                List.of(bounds("m", "n", 1), bounds("a", "b", 1))));
    }

    @Test
    void rejectsAnUnsortedAlignedLevelButAcceptsSharedStarts() {
        OutputSpec spec = OutputSpec.maxFileBytes(100).alignedTo(1);
        assertThrows(IllegalArgumentException.class, () -> new OutputCutter(spec,
                List.of(bounds("m", "n", 1), bounds("a", "b", 1)), List.of()));
        OutputCutter cutter = new OutputCutter(spec, List.of(bounds("a", "b", 1), bounds("c", "d", 1),
                bounds("c", "e", 1)), List.of());
        cutter.fileStarted(key("a"));
        assertTrue(!cutter.cutBefore(key("b"), 1));
        assertTrue(cutter.cutBefore(key("c"), 2));
    }

    @Test
    void theOverlapCountRuleNeedsTheLevelBelowAndIsValidated() {
        OutputSpec spec = OutputSpec.maxFileBytes(100).withMinFileBytes(10).withMaxOverlapFiles(3);
        assertTrue(spec.usesLevelBelow());
        assertEquals(3, spec.maxOverlapFiles());
        assertEquals(spec.maxOverlapFiles(), spec.withMaxFileBytes(50).withCutKeys(List.of(key("m"))).alignedTo(2)
                .withMaxOverlapBytes(7).withMaxOverlapRatio(2).withMinFileBytes(5).maxOverlapFiles(),
                "every wither keeps the file-count limit");
        assertTrue(!OutputSpec.maxFileBytes(100).usesLevelBelow());
        assertEquals(Integer.MAX_VALUE, new OutputSpec(100, 0, List.of(), OutputSpec.NO_LEVEL, 5, 2.0)
                .maxOverlapFiles(), "the six-argument constructor sets no file-count limit");
        assertTrue(!spec.equals(spec.withMaxOverlapFiles(4)));
        assertTrue(spec.toString().contains("overlap-files<=3"), spec.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OutputSpec.maxFileBytes(100).withMaxOverlapFiles(0));
        assertTrue(e.getMessage().contains("maxOverlapFiles"), e.getMessage());
    }

    @Test
    void rejectsBadFileBounds() {
        assertThrows(IllegalArgumentException.class, () -> bounds("b", "a", 1));
        assertThrows(IllegalArgumentException.class, () -> bounds("a", "b", -1));
    }

    // ---- the cutter as the engine drives it -------------------------------------------------

    /** Indexes of the keys that start each output file. */
    private static List<Integer> cut(Case c) {
        OutputCutter cutter = new OutputCutter(c.spec(), c.align(), c.below());
        List<Integer> starts = new ArrayList<>();
        long current = 0;
        for (int i = 0; i < c.keys().size(); i++) {
            byte[] k = c.keys().get(i);
            if (i == 0 || cutter.cutBefore(k, current)) {
                cutter.fileStarted(k);
                starts.add(i);
                current = 0;
            }
            current += c.sizes()[i];
        }
        return starts;
    }

    // ---- the reference: every rule as a direct predicate, scanning every file ----------------

    private static List<Integer> reference(Case c) {
        OutputSpec spec = c.spec();
        List<Integer> starts = new ArrayList<>();
        byte[] s = null;
        long current = 0;
        for (int i = 0; i < c.keys().size(); i++) {
            byte[] k = c.keys().get(i);
            if (s == null || referenceCut(spec, c.align(), c.below(), s, k, current)) {
                s = k;
                starts.add(i);
                current = 0;
            }
            current += c.sizes()[i];
        }
        return starts;
    }

    private static boolean referenceCut(OutputSpec spec, List<FileBounds> align, List<FileBounds> below,
                                        byte[] s, byte[] k, long bytes) {
        if (bytes >= spec.maxFileBytes()) {
            return true;
        }
        if (bytes < spec.minFileBytes()) {
            return false;
        }
        byte[] nextCut = null;
        for (byte[] c : spec.cutKeys()) {
            if (cmp(c, s) > 0 && (nextCut == null || cmp(c, nextCut) < 0)) {
                nextCut = c;
            }
        }
        if (nextCut != null && cmp(k, nextCut) >= 0) {
            return true;
        }
        if (spec.alignToLevel() != OutputSpec.NO_LEVEL) {
            byte[] nextStart = null;
            for (FileBounds f : align) {
                if (cmp(f.minKey(), s) > 0 && (nextStart == null || cmp(f.minKey(), nextStart) < 0)) {
                    nextStart = f.minKey();
                }
            }
            if (nextStart != null && cmp(k, nextStart) >= 0) {
                return true;
            }
        }
        long passed = 0;
        long entered = 0;
        int intersecting = 0;
        for (FileBounds f : below) {
            if (cmp(f.maxKey(), s) >= 0 && cmp(f.maxKey(), k) < 0) {
                passed += f.bytes();
            }
            if (cmp(f.maxKey(), s) >= 0 && cmp(f.minKey(), k) <= 0) {
                entered += f.bytes();
                intersecting++;
            }
        }
        if (spec.maxOverlapBytes() != Long.MAX_VALUE && passed > spec.maxOverlapBytes()) {
            return true;
        }
        if (spec.maxOverlapRatio() != Double.POSITIVE_INFINITY && entered > spec.maxOverlapRatio() * bytes) {
            return true;
        }
        return spec.maxOverlapFiles() != Integer.MAX_VALUE && intersecting > spec.maxOverlapFiles();
    }

    // ---- random cases ----------------------------------------------------------------------

    private static Case randomCase(Random rnd, int round) {
        int keySpace = 20 + rnd.nextInt(200);
        List<byte[]> keys = new ArrayList<>();
        for (int v : sample(rnd, keySpace, 1 + rnd.nextInt(Math.min(keySpace, 80)))) {
            keys.add(code(v));
        }
        long[] sizes = new long[keys.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 100);
        }
        OutputSpec spec = OutputSpec.singleFile();
        if (rnd.nextInt(3) == 0) {
            spec = spec.withMaxFileBytes(20 + rnd.nextInt(400));
        }
        if (rnd.nextInt(3) == 0) {
            spec = spec.withMinFileBytes(Math.min(spec.maxFileBytes(), rnd.nextInt(150)));
        }
        if (rnd.nextInt(3) == 0) {
            List<byte[]> cuts = new ArrayList<>();
            for (int v : sample(rnd, keySpace, rnd.nextInt(8))) {
                cuts.add(code(v));
            }
            spec = spec.withCutKeys(cuts);
        }
        List<FileBounds> align = List.of();
        if (rnd.nextInt(3) == 0) {
            spec = spec.alignedTo(rnd.nextInt(4));
            align = randomLevel(rnd, keySpace, rnd.nextInt(2) == 0);
        }
        List<FileBounds> below = randomLevel(rnd, keySpace, false);
        if (rnd.nextInt(3) == 0) {
            spec = spec.withMaxOverlapBytes(1 + rnd.nextInt(600));
        }
        if (rnd.nextInt(3) == 0) {
            spec = spec.withMaxOverlapRatio(0.25 + rnd.nextDouble() * 8);
        }
        if (rnd.nextInt(3) == 0) {
            spec = spec.withMaxOverlapFiles(1 + rnd.nextInt(6));
        }
        return new Case(Integer.toString(round), spec, align, below, keys, sizes, null);
    }

    /** Sorted files over [0, keySpace); sharing starts when {@code shareStarts} (allowed when aligning). */
    private static List<FileBounds> randomLevel(Random rnd, int keySpace, boolean shareStarts) {
        List<Integer> points = sample(rnd, keySpace, 2 * rnd.nextInt(12));
        List<FileBounds> files = new ArrayList<>();
        for (int i = 0; i + 1 < points.size(); i += 2) {
            int lo = points.get(i);
            int hi = rnd.nextInt(4) == 0 ? lo : points.get(i + 1);
            files.add(new FileBounds(code(lo), code(hi), rnd.nextInt(300)));
            if (shareStarts && rnd.nextInt(4) == 0) {
                files.add(new FileBounds(code(lo), code(points.get(i + 1)), rnd.nextInt(300)));
            }
        }
        return files;
    }

    private static List<Integer> sample(Random rnd, int space, int n) {
        TreeSet<Integer> set = new TreeSet<>();
        while (set.size() < Math.min(n, space)) {
            set.add(rnd.nextInt(space));
        }
        return new ArrayList<>(set);
    }

    /** Keys of different lengths so that prefixes and unsigned bytes are exercised. */
    private static byte[] code(int v) {
        return v % 3 == 0 ? new byte[] {(byte) v} : new byte[] {(byte) v, (byte) (0x80 + v % 7)};
    }

    // ---- golden file parsing ---------------------------------------------------------------

    private static List<Case> parseGolden() throws IOException {
        String text;
        try (InputStream in = OutputCutterTest.class.getResourceAsStream("/merge/output_cutter.txt")) {
            assertNotNull(in, "golden file merge/output_cutter.txt missing");
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> cases = new ArrayList<>();
        String name = null;
        OutputSpec spec = null;
        List<FileBounds> align = List.of();
        List<FileBounds> below = List.of();
        List<byte[]> keys = null;
        long[] sizes = null;
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("case ")) {
                name = line.substring(5);
                spec = OutputSpec.singleFile();
                align = List.of();
                below = List.of();
                keys = null;
                continue;
            }
            int colon = line.indexOf(':');
            String field = line.substring(0, colon);
            String value = line.substring(colon + 1).strip();
            switch (field) {
                case "spec" -> spec = parseSpec(value);
                case "align" -> align = parseFiles(value);
                case "below" -> below = parseFiles(value);
                case "keys" -> {
                    String[] items = value.split("\\s+");
                    keys = new ArrayList<>();
                    sizes = new long[items.length];
                    for (int i = 0; i < items.length; i++) {
                        String[] kv = items[i].split(":");
                        keys.add(key(kv[0]));
                        sizes[i] = Long.parseLong(kv[1]);
                    }
                }
                case "expect" -> cases.add(new Case(name, spec, align, below, keys, sizes, value));
                default -> throw new IllegalArgumentException("golden file: unknown field '" + field + "' in " + line);
            }
        }
        return cases;
    }

    private static OutputSpec parseSpec(String value) {
        long max = Long.MAX_VALUE;
        long min = 0;
        List<byte[]> cuts = List.of();
        int align = OutputSpec.NO_LEVEL;
        long overlap = Long.MAX_VALUE;
        double ratio = Double.POSITIVE_INFINITY;
        int files = Integer.MAX_VALUE;
        for (String item : value.split("\\s+")) {
            String[] kv = item.split("=");
            switch (kv[0]) {
                case "max" -> max = Long.parseLong(kv[1]);
                case "min" -> min = Long.parseLong(kv[1]);
                case "cuts" -> cuts = Arrays.stream(kv[1].split(",")).map(OutputCutterTest::key).toList();
                case "align" -> align = Integer.parseInt(kv[1]);
                case "overlap" -> overlap = Long.parseLong(kv[1]);
                case "ratio" -> ratio = Double.parseDouble(kv[1]);
                case "files" -> files = Integer.parseInt(kv[1]);
                default -> throw new IllegalArgumentException("golden file: unknown spec field " + kv[0]);
            }
        }
        return new OutputSpec(max, min, cuts, align, overlap, ratio, files);
    }

    private static List<FileBounds> parseFiles(String value) {
        List<FileBounds> files = new ArrayList<>();
        for (String item : value.split("\\s+")) {
            String[] sizeSplit = item.split(":");
            String[] range = sizeSplit[0].split("\\.\\.");
            files.add(bounds(range[0], range[1], sizeSplit.length > 1 ? Long.parseLong(sizeSplit[1]) : 0));
        }
        return files;
    }

    private static String render(List<byte[]> keys, List<Integer> starts) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                sb.append(starts.contains(i) ? " | " : " ");
            }
            byte[] k = keys.get(i);
            sb.append(isPrintable(k) ? new String(k, StandardCharsets.US_ASCII) : Arrays.toString(k));
        }
        return sb.toString();
    }

    private static boolean isPrintable(byte[] k) {
        for (byte b : k) {
            if (b < 'a' || b > 'z') {
                return false;
            }
        }
        return true;
    }

    private static FileBounds bounds(String min, String max, long bytes) {
        return new FileBounds(key(min), key(max), bytes);
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static int cmp(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }
}
