package dev.strata.lsm;

import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.testkit.TestKeys;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input, closed stores, stats, metrics and configuration through the public API. */
class StoreApiTest {
    @TempDir
    Path dir;

    @Test
    void badKeysAndValuesAreRejectedAndChangeNothing() {
        StoreConfig config = StoreConfig.builder().maxValueBytes(1000).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put("k".getBytes(), "v".getBytes());
            long seq = store.stats().lastSequence();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.put(new byte[993], new byte[1]));
            assertTrue(e.getMessage().contains("993") && e.getMessage().contains("992"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> store.put("k".getBytes(), new byte[1001]));
            assertTrue(e.getMessage().contains("1001") && e.getMessage().contains("1000"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.put(null, new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> store.put("k".getBytes(), null));
            assertThrows(IllegalArgumentException.class, () -> store.delete(null));
            assertThrows(IllegalArgumentException.class, () -> store.get(null));
            // A batch with one bad operation applies none of them.
            WriteBatch b = new WriteBatch().put("a".getBytes(), "1".getBytes()).put(new byte[5000], new byte[1]);
            assertThrows(IllegalArgumentException.class, () -> store.write(b));
            assertNull(store.get("a".getBytes()));
            assertEquals(seq, store.stats().lastSequence());
            assertArrayEquals("v".getBytes(), store.get("k".getBytes()));
        }
    }

    @Test
    void operationsAfterCloseThrowStoreClosedException() {
        LsmStore store = LsmStore.open(dir);
        store.put("k".getBytes(), "v".getBytes());
        Snapshot snap = store.snapshot();
        store.close();
        store.close(); // idempotent
        assertThrows(StoreClosedException.class, () -> store.put("k".getBytes(), "v".getBytes()));
        assertThrows(StoreClosedException.class, () -> store.get("k".getBytes()));
        assertThrows(StoreClosedException.class, () -> store.scan(null, null));
        assertThrows(StoreClosedException.class, store::snapshot);
        assertThrows(StoreClosedException.class, store::flush);
        assertThrows(StoreClosedException.class, () -> snap.get("k".getBytes()));
        snap.close();
        assertThrows(StoreClosedException.class, () -> snap.get("k".getBytes()));
    }

    @Test
    void cursorsUsedAfterCloseThrowStoreClosedException() {
        LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(16 * 1024).build());
        for (int i = 0; i < 2000; i++) {
            store.put(TestKeys.padded("key", i, 6).getBytes(), new byte[40]);
        }
        store.flush();
        store.put("zz".getBytes(), "memtable only".getBytes());
        Cursor fromTables = store.scan(null, null);
        assertTrue(fromTables.next());
        Cursor fromMemtable = store.scan("zz".getBytes(), null);
        Cursor unstarted = store.scan(null, null);
        store.close();
        StoreClosedException e = assertThrows(StoreClosedException.class, () -> {
            while (fromTables.next()) {
                // Reads the rest of the tables, whose files are closed now.
            }
        });
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(StoreClosedException.class, fromMemtable::next);
        assertThrows(StoreClosedException.class, unstarted::next);
        fromTables.close();
        fromMemtable.close();
        unstarted.close();
    }

    @Test
    void unknownPolicyAndBadParametersAreConfigErrors() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().mergePolicy("leveled-magic").build());
        assertTrue(e.getMessage().contains("leveled-magic") && e.getMessage().contains("size-tiered"), e.getMessage());
        e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().mergePolicy("size-tiered", Map.of("fanot", "3")).build());
        assertTrue(e.getMessage().contains("fanot") && e.getMessage().contains("fanout"), e.getMessage());
        e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().mergePolicy("size-tiered", Map.of("fanout", "1")).build());
        assertTrue(e.getMessage().contains("from 2 to 64"), e.getMessage());
        assertThrows(ConfigException.class, () -> StoreConfig.builder().pageSize(5000).build());
        assertThrows(ConfigException.class, () -> StoreConfig.builder().memtableBytes(10).build());
    }

    @Test
    void secondOpenOfTheSameDirectoryFails() {
        try (LsmStore store = LsmStore.open(dir)) {
            StoreException e = assertThrows(StoreException.class, () -> LsmStore.open(dir));
            assertTrue(e.getMessage().contains("already open"), e.getMessage());
        }
        LsmStore.open(dir).close();
    }

    @Test
    void statsCountBytesByPurposeAndAmplification() {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 * 1024).mergePolicy("size-tiered",
                Map.of("fanout", "2")).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 5000; i++) {
                store.put(TestKeys.padded("key", i, 8).getBytes(), new byte[100]);
            }
            store.flush();
            store.awaitMerges();
            StoreStats s = store.stats();
            assertTrue(s.walBytesWritten() > 5000 * 100, s.toString());
            assertTrue(s.flushBytesWritten() > 0 && s.mergeBytesWritten() > 0, s.toString());
            assertTrue(s.manifestBytesWritten() > 0, s.toString());
            assertEquals((double) (s.flushBytesWritten() + s.mergeBytesWritten()) / s.flushBytesWritten(),
                    s.writeAmplification(), 1e-9);
            assertTrue(s.writeAmplification() > 1.0, s.toString());
            assertTrue(s.spaceAmplification() >= 1.0 && s.spaceAmplification() < 3, s.toString());
            assertEquals(s.tableFileBytes() / s.liveLogicalBytes(), s.spaceAmplification(), 1e-9);
            assertTrue(s.tableFileBytes() >= s.liveComponentBytes(), s.toString());
            assertTrue(s.flushCount() >= 5 && s.mergeCount() >= 1, s.toString());
            assertEquals(s.componentCount(), s.componentsPerLevel()[0]);
        }
    }

    @Test
    void spaceAmplificationIsNotAvailableForATinyStore() {
        try (LsmStore store = LsmStore.open(dir)) {
            assertTrue(Double.isNaN(store.stats().spaceAmplification()), store.stats().toString());
            for (int i = 0; i < 3; i++) {
                store.put(("k" + i).getBytes(), ("value" + i).getBytes());
            }
            store.flush();
            StoreStats s = store.stats();
            // Three keys in a table of several pages: the ratio (once 708.9) measures fixed page overhead.
            assertTrue(s.tableFileBytes() > 0 && s.liveLogicalBytes() > 0, s.toString());
            assertTrue(Double.isNaN(s.spaceAmplification()), s.toString());
            assertTrue(s.toString().contains("SA=n/a"), s.toString());
        }
    }

    @Test
    void hostRegistryReceivesMetersAndLosesThemOnClose() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreConfig config = StoreConfig.builder().meterRegistry(registry).memtableBytes(16 * 1024).build();
        try (LsmStore store = LsmStore.open(dir.resolve("m"), config)) {
            for (int i = 0; i < 500; i++) {
                store.put(("k" + i).getBytes(), new byte[100]);
                store.get(("k" + i).getBytes());
            }
            store.flush();
            assertTrue(registry.get("strata.io.written").tag("purpose", "wal").functionCounter().count() > 50_000);
            assertEquals(500, registry.get("strata.gets").tag("store", "m").functionCounter().count());
            assertEquals(500, registry.get("strata.write").timer().count());
            assertTrue(registry.get("strata.write").timer().max(java.util.concurrent.TimeUnit.NANOSECONDS) > 0);
            assertEquals(3, registry.get("strata.flush").timer().takeSnapshot().percentileValues().length);
            assertTrue(registry.get("strata.flushes").functionCounter().count() >= 1);
            assertTrue(registry.get("strata.write.amplification").gauge().value() >= 1.0);
            assertFalse(registry.find("cache.gets").tag("cache", "strata.block.cache").meters().isEmpty(),
                    "cache metrics");
        }
        assertTrue(registry.find("strata.gets").meters().isEmpty(), "meters removed on close");
        assertTrue(registry.find("cache.gets").meters().isEmpty(), "cache meters removed on close");
    }

    @Test
    void syncAndNoneWalModesKeepDataAcrossReopen() {
        for (WalSyncMode mode : WalSyncMode.values()) {
            Path d = dir.resolve(mode.name());
            StoreConfig config = StoreConfig.builder().walMode(mode).build();
            try (LsmStore store = LsmStore.open(d, config)) {
                store.put("k".getBytes(), mode.name().getBytes());
            }
            try (LsmStore store = LsmStore.open(d, config)) {
                assertArrayEquals(mode.name().getBytes(), store.get("k".getBytes()), mode.name());
            }
        }
    }

    @Test
    void anOpenCursorKeepsItsFilesWhileMergesReplaceThem() {
        StoreConfig config = StoreConfig.builder().memtableBytes(16 * 1024)
                .mergePolicy("size-tiered", Map.of("fanout", "2")).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 2000; i++) {
                store.put(TestKeys.padded("k", i, 5).getBytes(), new byte[64]);
            }
            store.flush();
            store.awaitMerges();
            try (Cursor c = store.scan(null, null)) {
                assertTrue(c.next());
                // Rewrite everything: the files the cursor reads are merged away meanwhile.
                for (int i = 0; i < 2000; i++) {
                    store.put(TestKeys.padded("k", i, 5).getBytes(), new byte[80]);
                }
                store.flush();
                store.awaitMerges();
                int n = 1;
                while (c.next()) {
                    assertEquals(64, c.value().length, "the cursor still reads its own version");
                    n++;
                }
                assertEquals(2000, n);
            }
            try (Cursor c = store.scan(null, null)) {
                int n = 0;
                while (c.next()) {
                    assertEquals(80, c.value().length);
                    n++;
                }
                assertEquals(2000, n);
            }
        }
    }

    @Test
    void recoveryReplaysTheWalAndRemovesOrphans() throws Exception {
        try (LsmStore store = LsmStore.open(dir)) {
            for (int i = 0; i < 100; i++) {
                store.put(("k" + i).getBytes(), ("v" + i).getBytes());
            }
        }
        Files.writeString(dir.resolve("999999.sst"), "orphan");
        try (LsmStore store = LsmStore.open(dir)) {
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(("v" + i).getBytes(), store.get(("k" + i).getBytes()));
            }
            assertEquals(1, store.stats().flushCount(), "the replayed WAL became one component");
            assertTrue(store.stats().io().bytesRead(IoPurpose.WAL) > 0);
        }
        assertFalse(Files.exists(dir.resolve("999999.sst")), "orphan table removed");
    }
}
