package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.StoreContents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Spooky in the engine, each layout: a store under random puts and deletes agrees with a map, across a reopen. */
class SpookyStoreTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"leveling", "lazy-leveling", "tiering"})
    void aStoreOnSpookyAgreesWithAMapAndGrowsLevels(String layout, @TempDir Path dir) {
        long seed = Long.getLong("strata.spooky.seed", 42);
        Random random = new Random(seed);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        StoreConfig config = StoreConfig.builder().memtableBytes(32 << 10).blockCacheBytes(1 << 20)
                .mergePolicy("spooky", Map.of("size-ratio", "3", "l0-compaction-trigger", "2",
                        "l0-slowdown-trigger", "4", "l0-stop-trigger", "6", "layout", layout))
                .build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 40_000; i++) {
                byte[] key = ByteBuffer.allocate(8).putLong(random.nextInt(8_000) * 2654435761L).array();
                if (random.nextInt(10) == 0) {
                    store.delete(key);
                    model.remove(key);
                } else {
                    byte[] value = new byte[16 + random.nextInt(48)];
                    random.nextBytes(value);
                    store.put(key, value);
                    model.put(key, value);
                }
            }
            store.awaitMerges();
            StoreStats stats = store.stats();
            assertEquals(0, stats.policyErrors(), layout + ": policy errors (seed " + seed + "): " + stats);
            assertTrue(stats.mergeCount() > 0, "merges ran: " + stats);
            assertTrue(stats.componentsPerLevel().length >= 3, "levels were added: " + stats);
            StoreContents.assertSame(model, store, "seed " + seed);
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            StoreContents.assertSame(model, store, "seed " + seed);
            assertEquals(0, store.stats().policyErrors());
        }
    }

    @Test
    void badParametersNameTheProblem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("spooky",
                Map.of("l0-slowdown-trigger", "10", "l0-stop-trigger", "9")));
        assertTrue(e.getMessage().contains("l0-slowdown-trigger") && e.getMessage().contains("l0-stop-trigger"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MergePolicies.create("spooky",
                Map.of("layout", "tiered")));
        assertTrue(e.getMessage().contains("layout") && e.getMessage().contains("lazy-leveling"), e.getMessage());
    }
}
