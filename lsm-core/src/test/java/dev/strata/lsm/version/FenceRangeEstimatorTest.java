package dev.strata.lsm.version;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The range estimator the engine gives policies reads each table's interior-page fences:
 * on a skewed key set it follows the real distribution, where interpolating over the
 * table's key range (the old estimate) is far off.
 */
class FenceRangeEstimatorTest {
    /** This test's policy: each test (instance) its own. */
    private final ViewProbePolicy policy = new ViewProbePolicy();
    static final int KEYS = 20_000;

    @TempDir
    Path dir;


    /** Keys crowded towards the low end: the fourth power of a uniform number, as 16 hex digits. */
    static byte[][] skewedKeys(long seed) {
        Random rnd = new Random(seed);
        byte[][] keys = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            double u = rnd.nextDouble();
            long v = (long) (Math.pow(u, 4) * (1L << 62));
            keys[i] = String.format("%016x", v).getBytes(UTF_8);
        }
        Arrays.sort(keys, Arrays::compareUnsigned);
        return keys;
    }

    @Test
    void fencesBeatInterpolationOnSkewedKeys() {
        long seed = TestSeed.orDefault(42);
        byte[][] keys = skewedKeys(seed);
        try (LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(8 << 20)
                .mergePolicy(policy).build())) {
            for (byte[] k : keys) {
                store.put(k, "0123456789".getBytes(UTF_8));
            }
            store.flush();
            store.awaitMerges(); // the policy decides after the flush, on its own thread
            TreeView view = policy.last.get();
            ComponentView table = view.components().get(0);
            TreeView interpolating = new TreeView(view.levels(), 0, null, null);
            double fenceError = 0;
            double interpolationError = 0;
            int ranges = 0;
            // Ranges between key quantiles: each holds a known share of the entries.
            double[] bounds = {0, 0.05, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 0.99, 1};
            for (int i = 0; i + 1 < bounds.length; i++) {
                int a = (int) (bounds[i] * (KEYS - 1));
                int b = (int) (bounds[i + 1] * (KEYS - 1));
                byte[] from = keys[a];
                byte[] to = keys[b];
                long distinct = Arrays.stream(keys).filter(k -> Arrays.compareUnsigned(k, from) >= 0
                        && Arrays.compareUnsigned(k, to) < 0).count();
                double real = (double) table.sizeBytes() * distinct / keys.length;
                fenceError += Math.abs(view.bytesInRange(table, from, to) - real) / table.sizeBytes();
                interpolationError += Math.abs(interpolating.bytesInRange(table, from, to) - real) / table.sizeBytes();
                ranges++;
            }
            fenceError /= ranges;
            interpolationError /= ranges;
            String report = String.format("mean error per range: fences %.4f, interpolation %.4f of the table (seed %d)",
                    fenceError, interpolationError, seed);
            System.out.println(report);
            assertTrue(fenceError < 0.02, report);
            assertTrue(fenceError * 5 < interpolationError, report);
            assertEquals(table.sizeBytes(), view.bytesInRange(table, null, null), "the whole table");
            assertEquals(0, view.bytesInRange(table, null, keys[0]), "below the smallest key");
        }
    }

    @Test
    void positionInterpolatesAfterTheSharedPrefix() {
        byte[] lo = "prefix-a0".getBytes(UTF_8);
        byte[] hi = "prefix-c0".getBytes(UTF_8);
        assertEquals(0.5, dev.strata.lsm.sstable.TableFences.uniform(lo, hi).fraction(lo, "prefix-b0".getBytes(UTF_8)),
                0.01);
        assertEquals(0, dev.strata.lsm.sstable.TableFences.uniform(lo, hi).fraction("a".getBytes(UTF_8), lo));
        assertEquals(1, dev.strata.lsm.sstable.TableFences.uniform(lo, hi).fraction(null, null));
    }
}
