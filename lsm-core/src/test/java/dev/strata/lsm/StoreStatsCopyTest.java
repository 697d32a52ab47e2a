package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each {@code StoreStats.with...} copy keeps the figures the others set, in any order (a merge
 * once chained {@code withBlockCache} after {@code withPrefixBloomSkips} and lost the skips).
 */
class StoreStatsCopyTest {
    @TempDir
    Path dir;

    @Test
    void everyWithCopyKeepsTheOthersFigures() {
        try (LsmStore store = LsmStore.open(dir)) {
            store.put(new byte[] {1}, new byte[] {2});
            store.flush();
            StoreStats base = store.stats();
            long[] logical = new long[base.liveBytesByLevel().length];
            java.util.Arrays.fill(logical, 4096);
            StoreStats a = base.withPrefixBloomSkips(7).withBlockCache(11, 13).withCompression(logical, 17, 19);
            StoreStats b = base.withCompression(logical, 17, 19).withBlockCache(11, 13).withPrefixBloomSkips(7);
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
            StoreStats base = store.stats().withPrefixBloomSkips(3).withBlockCache(5, 6);
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
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> base.withBlockCache(-1, 0));
        }
    }
}
