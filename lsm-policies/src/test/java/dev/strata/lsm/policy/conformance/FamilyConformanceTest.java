package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every registered merge policy running a column family beside another family under the
 * store's default policy: puts, deletes and batches across both families against a TreeMap
 * per family, with flushes, merges and a reopen; both families must agree with their oracle
 * and the policy must report no error. 600 operations per policy; one
 * policy of each family in the fast lane, every policy (1,800 operations at multiplier 3) in the slow lane.
 */
class FamilyConformanceTest {
    @TempDir
    Path tmp;

    /**
     * One policy of each family in the fast lane ({@link RegisteredPolicies#REPRESENTATIVES}),
     * every registered policy in the slow lane ({@link FamilyConformanceSlowTest}).
     */
    static Stream<String> policies() {
        return RegisteredPolicies.representativesInTheFastLane();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFamilyUnderThePolicyAgreesWithItsOracle(String name) {
        RegisteredPolicies.skipKnownGap("store", name);
        long seed = TestSeed.orRandom();
        String replay = name + " (replay with -Dstrata.test.seed=" + seed + ")";
        Random rnd = new Random(seed ^ name.hashCode());
        StoreConfig config = StoreConfig.builder().memtableBytes(32 << 10).blockCacheBytes(1 << 20)
                .family("p", FamilyOptions.builder().memtableBytes(16 << 10).mergePolicy(name, Map.of()).build())
                .build();
        Path dir = tmp.resolve(name);
        TreeMap<byte[], byte[]> inP = new TreeMap<>(Arrays::compareUnsigned);
        TreeMap<byte[], byte[]> inDefault = new TreeMap<>(Arrays::compareUnsigned);
        int ops = TestScale.scaled(600);
        for (int phase = 0; phase < 2; phase++) {
            try (LsmStore store = LsmStore.open(dir, config)) {
                ColumnFamily p = store.columnFamily("p");
                check(store, p, inP, "family p, phase " + phase + ": " + replay);
                check(store, store.defaultColumnFamily(), inDefault, "default family, phase " + phase + ": " + replay);
                for (int i = 0; i < ops / 2; i++) {
                    int op = rnd.nextInt(100);
                    byte[] k = TestKeys.padded("k", rnd.nextInt(3000), 5).getBytes();
                    byte[] v = new byte[20 + rnd.nextInt(200)];
                    rnd.nextBytes(v);
                    if (op < 60) {
                        store.put(p, k, v);
                        inP.put(k, v);
                    } else if (op < 70) {
                        store.delete(p, k);
                        inP.remove(k);
                    } else if (op < 95) {
                        store.write(new WriteBatch().put(p, k, v).put(k, v));
                        inP.put(k, v);
                        inDefault.put(k, v);
                    } else if (op < 98) {
                        store.flushColumnFamily(p);
                    } else {
                        assertArrayEquals(inP.get(k), store.get(p, k), "get in p at op " + i + ": " + replay);
                    }
                }
                store.awaitMerges();
                check(store, p, inP, "family p, end of phase " + phase + ": " + replay);
                assertEquals(0, store.columnFamilyStats(p).policyErrors(), "policy errors: " + replay);
            }
        }
    }

    private static void check(LsmStore store, ColumnFamily cf, TreeMap<byte[], byte[]> oracle, String what) {
        List<String> expected = new ArrayList<>();
        oracle.forEach((k, v) -> expected.add(new String(k) + "=" + Arrays.hashCode(v)));
        List<String> actual = new ArrayList<>();
        try (Cursor c = store.scan(cf, null, null)) {
            while (c.next()) {
                actual.add(new String(c.key()) + "=" + Arrays.hashCode(c.value()));
            }
        }
        assertEquals(expected, actual, what);
    }
}
