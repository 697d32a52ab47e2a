package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A copy through {@link StoreStats#toBuilder()} keeps every figure, and each setter keeps the
 * figures the others set, in any order (a merge once chained two copies and lost the first's
 * figure).
 */
class StoreStatsCopyTest {
    @TempDir
    Path dir;

    @Test
    void everySetterOfACopyKeepsTheOthersFigures() {
        try (LsmStore store = LsmStore.open(dir)) {
            store.put(new byte[] {1}, new byte[] {2});
            store.flush();
            StoreStats base = store.stats();
            long[] logical = new long[base.liveBytesByLevel().length];
            java.util.Arrays.fill(logical, 4096);
            StoreStats a = base.toBuilder().prefixBloomSkips(7).build().toBuilder().blockCache(11, 13).build()
                    .toBuilder().compression(logical, 17, 19).build();
            StoreStats b = base.toBuilder().compression(logical, 17, 19).blockCache(11, 13).prefixBloomSkips(7).build();
            for (StoreStats s : new StoreStats[] {a, b}) {
                assertEquals(7, s.prefixBloomSkips(), s.toString());
                assertEquals(11, s.blockCacheHits(), s.toString());
                assertEquals(13, s.blockCacheMisses(), s.toString());
                assertEquals(17, s.decompressions(), s.toString());
                assertEquals(19, s.decompressionNanos(), s.toString());
                assertEquals(base.flushCount(), s.flushCount());
                assertTrue(s.tableFileBytes() > 0);
            }
        }
    }

    @Test
    void theBuilderKeepsEveryFigureAndChecksThePerLevelArrays() {
        try (LsmStore store = LsmStore.open(dir)) {
            store.put(new byte[] {1}, new byte[] {2});
            store.flush();
            StoreStats base = store.stats().toBuilder().prefixBloomSkips(3).blockCache(5, 6).build();
            StoreStats copy = base.toBuilder().build();
            assertEquals(base.toString(), copy.toString());
            assertEquals(base.lastSequence(), copy.lastSequence());
            assertEquals(base.liveTombstones(), copy.liveTombstones());
            assertEquals(3, copy.prefixBloomSkips());
            assertEquals(6, copy.blockCacheMisses());
            org.junit.jupiter.api.Assertions.assertArrayEquals(base.liveTableFileNumbers(), copy.liveTableFileNumbers());
            org.junit.jupiter.api.Assertions.assertArrayEquals(base.physicalBytesByLevel(), copy.physicalBytesByLevel());
            // Defaults of a bare builder: unknown allocation and tombstones, no per-level figures.
            StoreStats bare = StoreStats.builder(base.io()).build();
            assertEquals(-1, bare.tableAllocatedBytes());
            assertEquals(-1, bare.liveTombstones());
            assertEquals(0, bare.componentCount());
            assertEquals(BlockCompactionStats.NONE, bare.blockCompaction());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> StoreStats.builder(base.io()).bytesByLevel(new long[2], new long[1]).build());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> StoreStats.builder(base.io()).bytesByLevel(new long[2], new long[2])
                            .compression(new long[3], 0, 0).build());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> StoreStats.builder(null).build());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> base.toBuilder().blockCache(-1, 0).build());
        }
    }
}
