package dev.strata.lsm.bench.workload;

import dev.strata.lsm.PrefixExtractor;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fillsparse and prefixabsent: the sparse fill leaves fifteen prefix groups empty after each
 * filled one, prefixabsent scans only empty ones (each a miss), the prefix bloom skips tables
 * for them and nothing skips without it, RocksDB runs the same requests, and after a dense
 * fill the workload fails naming the cause.
 */
class PrefixAbsentWorkloadTest {
    private static final long RECORDS = 12_000;
    private static final long OPS = 1_000;

    private static WorkloadSettings settings(WorkloadType fill) {
        return new WorkloadSettings(List.of(fill, WorkloadType.PREFIXABSENT), RECORDS, OPS, 16, 100, 1, 7, null,
                0.99, null, 100, 50);
    }

    private static StoreConfig config(boolean bloom) {
        // A small memtable: the fill leaves several tables, each spanning the key range.
        return StoreConfig.builder().memtableBytes(256 << 10).blockCacheBytes(1 << 20)
                .prefixExtractor(bloom ? PrefixExtractor.fixed(15) : null).build();
    }

    @Test
    void sparseKeysAndAbsentPrefixes() {
        RecordFormat f = new RecordFormat(16, 10, 1);
        assertEquals(0x10_00 + 0x34, RecordFormat.sparseRecord(0x1_34), "group 1 becomes group 16, last byte kept");
        byte[] absent = f.absentPrefix(0x1_34, 3);
        assertArrayEquals(Arrays.copyOf(f.key(0x13_00), 15), absent, "group 16 + 3");
        assertThrows(IllegalArgumentException.class, () -> f.absentPrefix(1, 0));
        assertThrows(IllegalArgumentException.class, () -> f.absentPrefix(1, RecordFormat.SPARSE_SPACING));
    }

    @Test
    void theBloomSkipsTablesForAbsentPrefixesOnlyWhenConfigured(@TempDir Path tmp) throws Exception {
        long[] skips = new long[2];
        for (int b = 0; b < 2; b++) {
            boolean bloom = b == 1;
            Comparison.Outcome o = Comparison.run(List.of("strata", "rocksdb"), 1, tmp.resolve("b" + b), false,
                    config(bloom), settings(WorkloadType.FILLSPARSE), null);
            for (String engine : List.of("strata", "rocksdb")) {
                Summary.Row fill = o.summary().rowsOf(engine).get(0);
                assertEquals(RECORDS, fill.ops(), engine);
                Summary.Row absent = o.summary().rowsOf(engine).get(1);
                assertTrue(absent.supported(), engine);
                assertEquals(OPS, absent.ops(), engine);
                assertEquals(OPS, absent.misses(), engine + ": every prefix asked for is absent");
            }
            Summary.Row strata = o.summary().rowsOf("strata").get(1);
            Object tables = strata.engineCounters().get("componentsPerLevel");
            skips[b] = ((Number) strata.engineCounters().get("prefixBloomSkips")).longValue();
            assertTrue(tables != null, "components reported");
        }
        assertEquals(0, skips[0], "no prefix bloom, nothing skipped");
        assertTrue(skips[1] >= OPS, "with the bloom most absent prefixes skip at least one table: " + skips[1]);
    }

    @Test
    void afterADenseFillItFailsNamingTheCause(@TempDir Path tmp) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Comparison.run(List.of("strata"),
                1, tmp, false, config(false), settings(WorkloadType.FILLRANDOM), null));
        Throwable root = e;
        while (root.getCause() != null && !root.getMessage().contains("fillsparse")) {
            root = root.getCause();
        }
        assertTrue(root.getMessage().contains("run it after fillsparse"), e.toString());
    }
}
