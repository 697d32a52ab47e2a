package dev.strata.lsm;

import dev.strata.lsm.testkit.TestKeys;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Logical and stored bytes per level, the compression ratio and decompressions in StoreStats and Micrometer. */
class CompressionStatsTest {
    @TempDir
    Path dir;

    private static byte[] value(int i) {
        return ("a value that repeats itself, number " + (i % 10) + "; ").repeat(4).getBytes();
    }

    @Test
    void compressedTablesReportTheirRatioAndDecompressions() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreConfig config = StoreConfig.builder().compression(Compression.LZ4).mergePolicy("no-merge")
                .meterRegistry(registry).build();
        int keys = 20_000;
        try (LsmStore store = LsmStore.open(dir.resolve("lz4"), config)) {
            for (int i = 0; i < keys; i++) {
                store.put(TestKeys.padded("key-", i, 8).getBytes(), value(i));
            }
            store.flush();
            StoreStats s = store.stats();
            long logical = Arrays.stream(s.logicalBytesByLevel()).sum();
            long stored = Arrays.stream(s.storedBytesByLevel()).sum();
            assertTrue(logical > 2 * stored, "logical " + logical + " vs stored " + stored);
            assertEquals((double) logical / stored, s.compressionRatio(), 1e-9);
            assertEquals(s.compressionRatio(), s.compressionRatio(0), 1e-9, "everything is in level 0");
            assertEquals(s.liveComponentBytes(), stored);
            for (int i = 0; i < keys; i += 97) {
                assertArrayEquals(value(i), store.get(TestKeys.padded("key-", i, 8).getBytes()));
            }
            StoreStats after = store.stats();
            assertTrue(after.decompressions() > 0, "reads decompressed pages");
            assertTrue(after.decompressionNanos() > 0);
            assertEquals(after.compressionRatio(), registry.get("strata.compression.ratio").gauge().value(), 1e-9);
            assertTrue(registry.get("strata.decompressions").functionCounter().count() >= after.decompressions());
            assertEquals(logical, registry.get("strata.level.logical.bytes").tag("level", "0").gauge().value(), 0.0);
            assertEquals(stored, registry.get("strata.level.stored.bytes").tag("level", "0").gauge().value(), 0.0);
            assertTrue(after.toString().contains("compression ratio="), after.toString());
        }
    }

    @Test
    void uncompressedTablesHaveRatioOne() {
        try (LsmStore store = LsmStore.open(dir.resolve("none"), StoreConfig.builder().mergePolicy("no-merge").build())) {
            for (int i = 0; i < 5000; i++) {
                store.put(TestKeys.padded("key-", i, 8).getBytes(), value(i));
            }
            store.flush();
            store.get("key-00000001".getBytes());
            StoreStats s = store.stats();
            assertArrayEquals(s.storedBytesByLevel(), s.logicalBytesByLevel());
            assertEquals(1.0, s.compressionRatio());
            assertEquals(0, s.decompressions());
        }
    }
}
