package dev.strata.lsm.bench.engine;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchEngineTest {
    private static final StoreConfig SMALL = StoreConfig.builder().memtableBytes(64 << 10).blockCacheBytes(1 << 20)
            .build();

    private static byte[] key(int i) {
        return TestKeys.padded("key", i, 5).getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @ValueSource(strings = {"strata", "rocksdb", "leveldb"})
    void putGetScanDeleteAndSettle(String name, @TempDir Path tmp) {
        Path dir = tmp.resolve(name);
        try (BenchEngine e = BenchEngine.open(name, dir, SMALL)) {
            assertEquals(name, e.name());
            assertTrue(e.durability().contains("no fsync"), e.durability());
            // Enough data for several flushes of the 64 KiB memtable.
            for (int i = 0; i < 3000; i++) {
                e.put(key(i), new byte[100]);
            }
            assertArrayEquals(new byte[100], e.get(key(1234)));
            assertNull(e.get(key(99_999)));
            assertEquals(5, e.scan(key(10), 5));
            assertEquals(3, e.scan(key(2997), 100), "the scan stops at the last key");
            e.delete(key(1234));
            assertNull(e.get(key(1234)));
            e.settle();
            assertFalse(e.ownCounters().isEmpty());
            assertArrayEquals(new byte[100], e.get(key(2999)), "data survives settling");
        }
        try (var files = Files.list(dir)) {
            assertTrue(files.findAny().isPresent(), "the engine wrote into its directory");
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /** A vlsm store named in the config reports its census: vSSTs, good shares and level-1 merges. */
    @Test
    void vlsmByNameReportsItsCensus(@TempDir Path tmp) {
        StoreConfig config = StoreConfig.builder().memtableBytes(16 << 10).maxImmutableMemtables(1)
                .blockCacheBytes(1 << 20).mergePolicy("vlsm", java.util.Map.of("sst-bytes", "16KiB")).build();
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        try (BenchEngine e = BenchEngine.open("strata", tmp.resolve("v"), config)) {
            // 6,000 entries in the fast lane (66 level-1 merges into level 2, 323 vSSTs in a run under
            // load; 4.4 CPU-seconds for the test JVM where 12,000 took 8.2), 18,000 in the slow lane
            // (BenchEngineSlowTest, multiplier 3).
            for (int i = 0; i < dev.strata.lsm.testkit.TestScale.scaled(6_000); i++) {
                e.put(java.nio.ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(i).array(), new byte[100]);
            }
            e.settle();
            var counters = e.ownCounters();
            assertTrue((Long) counters.get("vlsmVssts") > 0, counters.toString());
            assertTrue((Long) counters.get("vlsmL1ToL2Merges") > 0, counters.toString());
            double good = (Double) counters.get("vlsmGoodShareByCount");
            assertTrue(good > 0 && good <= 1, counters.toString());
            assertTrue(((java.util.Map<?, ?>) counters.get("bytesWrittenByKind")).containsKey("l1-to-l2"),
                    counters.toString());
        }
        try (BenchEngine e = BenchEngine.open("strata", tmp.resolve("s"), SMALL)) {
            assertFalse(e.ownCounters().containsKey("vlsmVssts"), "no census for other policies");
        }
    }

    @Test
    void refusesADirectoryThatIsNotFreshAndAnUnknownName(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("old-file"), "x");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchEngine.open("strata", tmp, SMALL));
        assertTrue(e.getMessage().contains("not empty"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BenchEngine.open("redis", tmp.resolve("x"), SMALL));
        assertTrue(e.getMessage().contains("redis"), e.getMessage());
    }
}
