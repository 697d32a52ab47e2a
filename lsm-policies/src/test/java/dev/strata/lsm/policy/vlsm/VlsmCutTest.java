package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.merge.OutputCutter;
import dev.strata.lsm.merge.OutputCutter.FileBounds;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * VL2 (FAMILIES.md §3.6), exact: the level-0 → level-1 output spec {@code vlsm} asks for,
 * evaluated by the engine's {@link OutputCutter} over a synthetic level 2 with a very dense, a
 * dense, a sparse and an empty region, cuts the merge output at exactly the points a
 * literal reference implementation of §3.1 step 2 (with O = the number of level-2 SSTs a
 * vSST's range intersects) chooses.
 */
class VlsmCutTest {
    private static final long SM_MAX = 64_000;   // S_M
    private static final int F = 8;              // f
    private static final long SM_MIN = SM_MAX / F; // S_m
    private static final long ENTRY = 100;       // divides S_m and S_M: "size <= S_M" is exact
    private static final int KEY_STEP = 50;
    private static final int KEY_END = 1_200_000;

    /** Level 2: 100-key files over [0, 50k), 1,000-key files to 150k, half-filled 100k-key spans to 1M, none above. */
    private static List<FileBounds> syntheticLevel2() {
        List<FileBounds> files = new ArrayList<>();
        for (int k = 0; k < 50_000; k += 100) {
            files.add(new FileBounds(key(k), key(k + 99), 1_000));
        }
        for (int k = 50_000; k < 150_000; k += 1_000) {
            files.add(new FileBounds(key(k), key(k + 999), 64_000));
        }
        for (int k = 150_000; k < 1_000_000; k += 100_000) {
            files.add(new FileBounds(key(k + 25_000), key(k + 75_000), 64_000));
        }
        return files;
    }

    @Test
    void cutsExactlyWhereTheReferenceOfStep2Cuts() {
        List<FileBounds> l2 = syntheticLevel2();
        OutputSpec spec = level0MergeSpec(Map.of("sst-bytes", Long.toString(SM_MAX), "growth", Integer.toString(F)),
                l2);
        assertEquals(F, spec.maxOverlapFiles(), "overlap=count is the default: " + spec);
        assertEquals(Double.POSITIVE_INFINITY, spec.maxOverlapRatio(), spec.toString());
        assertEquals(SM_MIN, spec.minFileBytes());
        assertEquals(SM_MAX, spec.maxFileBytes());

        List<byte[]> keys = new ArrayList<>();
        for (int k = 0; k < KEY_END; k += KEY_STEP) {
            keys.add(key(k));
        }
        List<Integer> engine = engineCuts(spec, l2, keys);
        List<Vsst> reference = referenceCuts(l2, keys);
        assertEquals(reference.stream().map(Vsst::first).toList(), engine, "cut points (indexes of first keys)");

        // The synthetic level 2 must exercise every branch of the rule, and every vSST meets VL2.
        int poor = 0;
        int goodByCount = 0;
        int goodBySize = 0;
        for (int i = 0; i < reference.size(); i++) {
            Vsst v = reference.get(i);
            boolean last = i == reference.size() - 1;
            int o = overlapCount(l2, keys.get(v.first()), keys.get(v.last()));
            if (!last) {
                assertTrue(v.bytes() >= SM_MIN && v.bytes() <= SM_MAX, "vSST size " + v.bytes() + " at " + v);
            }
            if (v.bytes() > SM_MIN) {
                assertTrue(o <= F, "a vSST larger than S_m intersects " + o + " > f level-2 SSTs: " + v);
            }
            if (o > F) {
                assertEquals(SM_MIN, v.bytes(), "a poor vSST is closed at S_m: " + v);
                poor++;
            } else if (v.bytes() == SM_MAX) {
                goodBySize++;
            } else if (!last) {
                assertEquals(F + 1, overlapCount(l2, keys.get(v.first()), keys.get(v.last() + 1)),
                        "a good vSST below S_M closes before the key that would make O = f + 1: " + v);
                goodByCount++;
            }
        }
        assertTrue(poor >= 10 && goodByCount >= 10 && goodBySize >= 10, "poor " + poor + ", good closed by the "
                + "count " + goodByCount + ", good closed at S_M " + goodBySize);
    }

    @Test
    void overlapBytesKeepsTheRatioRuleAndBadValuesAreRejected() {
        List<FileBounds> l2 = syntheticLevel2();
        OutputSpec spec = level0MergeSpec(Map.of("sst-bytes", Long.toString(SM_MAX), "growth", Integer.toString(F),
                "overlap", "bytes"), l2);
        assertEquals(F, spec.maxOverlapRatio());
        assertEquals(Integer.MAX_VALUE, spec.maxOverlapFiles());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MergePolicies.create("vlsm", Map.of("overlap", "ratio")));
        assertTrue(e.getMessage().contains("overlap") && e.getMessage().contains("ratio")
                && e.getMessage().contains("count") && e.getMessage().contains("bytes"), e.getMessage());
    }

    /** The spec of the merge {@code vlsm} picks for one level-0 SST over an empty level 1 and {@code l2}. */
    private static OutputSpec level0MergeSpec(Map<String, String> params, List<FileBounds> l2) {
        List<ComponentView> level2 = new ArrayList<>();
        long id = 100;
        for (FileBounds b : l2) {
            level2.add(component(id++, b.minKey(), b.maxKey(), b.bytes()));
        }
        TreeView tree = new TreeView(List.of(
                new LevelView(0, List.of(new RunView(List.of(component(1, key(0), key(KEY_END), SM_MAX))))),
                new LevelView(1, List.of()),
                new LevelView(2, List.of(new RunView(level2)))), 0, new byte[0], null);
        List<MergeTask> tasks = MergePolicies.create("vlsm", params).pickMerges(tree);
        assertEquals(1, tasks.size(), tasks.toString());
        assertEquals(1, tasks.get(0).placement().level(), tasks.toString());
        return tasks.get(0).output();
    }

    /** Indexes of the keys that start each file, as the engine drives the cutter (TableOutput). */
    private static List<Integer> engineCuts(OutputSpec spec, List<FileBounds> l2, List<byte[]> keys) {
        OutputCutter cutter = new OutputCutter(spec, List.of(), l2);
        List<Integer> starts = new ArrayList<>();
        long size = 0;
        for (int i = 0; i < keys.size(); i++) {
            if (i == 0 || cutter.cutBefore(keys.get(i), size)) {
                cutter.fileStarted(keys.get(i));
                starts.add(i);
                size = 0;
            }
            size += ENTRY;
        }
        return starts;
    }

    /** A vSST of the reference: its first and last key indexes and its size. */
    private record Vsst(int first, int last, long bytes) {
    }

    /**
     * FAMILIES.md §3.1 step 2 as written: append while the vSST is smaller than S_m; on
     * reaching S_m close it if O > f (poor); otherwise keep appending while the next entry
     * keeps O ≤ f and the size ≤ S_M, and close before the entry that would not.
     */
    private static List<Vsst> referenceCuts(List<FileBounds> l2, List<byte[]> keys) {
        List<Vsst> out = new ArrayList<>();
        int first = 0;
        long size = 0;
        boolean decided = false; // reached S_m and found good
        for (int i = 0; i < keys.size(); i++) {
            if (i > first) {
                boolean close;
                if (size < SM_MIN) {
                    close = false;
                } else if (!decided) {
                    close = overlapCount(l2, keys.get(first), keys.get(i - 1)) > F; // poor
                    decided = !close;
                    close = close || overlapCount(l2, keys.get(first), keys.get(i)) > F || size + ENTRY > SM_MAX;
                } else {
                    close = overlapCount(l2, keys.get(first), keys.get(i)) > F || size + ENTRY > SM_MAX;
                }
                if (close) {
                    out.add(new Vsst(first, i - 1, size));
                    first = i;
                    size = 0;
                    decided = false;
                }
            }
            size += ENTRY;
        }
        out.add(new Vsst(first, keys.size() - 1, size));
        return out;
    }

    /** O: the level-2 files whose range intersects [lo, hi], by scanning them all. */
    private static int overlapCount(List<FileBounds> l2, byte[] lo, byte[] hi) {
        int n = 0;
        for (FileBounds f : l2) {
            if (Arrays.compareUnsigned(f.maxKey(), lo) >= 0 && Arrays.compareUnsigned(f.minKey(), hi) <= 0) {
                n++;
            }
        }
        return n;
    }

    private static ComponentView component(long id, byte[] min, byte[] max, long bytes) {
        return ComponentView.builder(new ComponentId(id, 0)).sizeBytes(bytes).entries(bytes / ENTRY, 0)
                .userBytes(bytes).keyRange(min, max).seqnos(id, id).creation(id, 0).build();
    }

    static byte[] key(int k) {
        return ByteBuffer.allocate(4).putInt(k).array();
    }
}
