package dev.strata.lsm;

import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.fault.WalFaultIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link WriteOptions}: sync forces the WAL whatever the store's mode; disableWal skips it. */
class WriteOptionsTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes();
    }

    @Test
    void syncForcesTheWalInAsyncMode() throws IOException {
        WalFaultIO io = new WalFaultIO();
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.ASYNC).storageIO(io).build();
        try (LsmStore s = LsmStore.open(dir.resolve("store"), config)) {
            int before = io.forces();
            s.put(b("plain"), b("1"));
            assertEquals(before, io.forces(), "a plain write in WAL mode async forced the WAL");
            s.put(b("durable"), b("2"), WriteOptions.defaults().sync(true));
            assertTrue(io.forces() > before, "a sync write did not force the WAL");
            int afterSync = io.forces();
            s.write(new WriteBatch().put(b("batch"), b("3")).delete(b("plain")), WriteOptions.defaults().sync(true));
            assertTrue(io.forces() > afterSync);
            afterSync = io.forces();
            s.delete(b("batch"), WriteOptions.defaults().sync(true));
            assertTrue(io.forces() > afterSync);
        }
    }

    @Test
    void syncIsDurableWhenTheStoreHasNoWal() throws IOException {
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.NONE).build();
        Path store = dir.resolve("store");
        try (LsmStore s = LsmStore.open(store, config)) {
            s.put(b("plain"), b("1"));
            CrashImages.copy(store, dir.resolve("before"));
            s.put(b("durable"), b("2"), WriteOptions.defaults().sync(true));
            // What a kill leaves now: the sync write, and the plain one written before it.
            CrashImages.copy(store, dir.resolve("after"));
        }
        try (LsmStore s = LsmStore.open(dir.resolve("before"), config)) {
            assertNull(s.get(b("plain")), "WAL mode none kept a plain write through a kill");
        }
        try (LsmStore s = LsmStore.open(dir.resolve("after"), config)) {
            assertArrayEquals(b("2"), s.get(b("durable")));
            assertArrayEquals(b("1"), s.get(b("plain")));
        }
    }

    @Test
    void writesWithoutWalAreVisibleLostByAKillAndKeptByAFlush() throws IOException {
        Path store = dir.resolve("store");
        WriteOptions noWal = WriteOptions.defaults().disableWal(true);
        try (LsmStore s = LsmStore.open(store)) {
            s.put(b("a"), b("wal"));
            s.put(b("b"), b("memtable only"), noWal);
            s.write(new WriteBatch().put(b("b2"), b("x")).put(b("b3"), b("y")), noWal);
            s.put(b("c"), b("wal"));
            s.delete(b("a"), noWal);
            assertArrayEquals(b("memtable only"), s.get(b("b")));
            assertNull(s.get(b("a")));
            CrashImages.copy(store, dir.resolve("killed"));
            s.flush();
            CrashImages.copy(store, dir.resolve("flushed"));
        }
        try (LsmStore s = LsmStore.open(dir.resolve("killed"))) {
            assertArrayEquals(b("wal"), s.get(b("a")), "the delete without WAL survived a kill");
            assertNull(s.get(b("b")));
            assertNull(s.get(b("b2")));
            assertArrayEquals(b("wal"), s.get(b("c")), "a WAL write after one without WAL was lost");
            // The recovered store takes new writes with sequence numbers above everything it saw.
            long seq = s.stats().lastSequence();
            s.put(b("d"), b("new"));
            assertTrue(s.stats().lastSequence() > seq);
        }
        try (LsmStore s = LsmStore.open(dir.resolve("flushed"))) {
            assertNull(s.get(b("a")));
            assertArrayEquals(b("memtable only"), s.get(b("b")));
            assertArrayEquals(b("y"), s.get(b("b3")));
            assertArrayEquals(b("wal"), s.get(b("c")));
        }
    }

    /**
     * A clean close keeps writes made without the WAL, as RocksDB's close flushes memtables
     * holding unpersisted data (its {@code avoid_flush_during_shutdown} defaults to false): in
     * WAL modes async and sync, close flushed nothing and the reopened store had lost them
     * (the Kafka stores' unlogged restores found it).
     */
    @Test
    void aCleanCloseKeepsWritesWithoutWal() throws IOException {
        WriteOptions noWal = WriteOptions.defaults().disableWal(true);
        for (WalSyncMode mode : new WalSyncMode[] {WalSyncMode.ASYNC, WalSyncMode.SYNC}) {
            Path store = dir.resolve("store-" + mode);
            StoreConfig config = StoreConfig.builder().walMode(mode).build();
            try (LsmStore s = LsmStore.open(store, config)) {
                ColumnFamily other = s.createColumnFamily("other", FamilyOptions.defaults());
                s.put(b("a"), b("wal"));
                s.put(b("b"), b("memtable only"), noWal);
                s.put(other, b("f"), b("family, memtable only"), noWal);
                s.put(b("c"), b("wal"));
                s.delete(b("a"), noWal);
            }
            try (LsmStore s = LsmStore.open(store, config)) {
                assertNull(s.get(b("a")), mode + ": a delete without WAL came back after a clean close");
                assertArrayEquals(b("memtable only"), s.get(b("b")), mode + ": a write without WAL lost by a clean close");
                assertArrayEquals(b("family, memtable only"), s.get(s.columnFamily("other"), b("f")),
                        mode + ": a family's write without WAL lost by a clean close");
                assertArrayEquals(b("wal"), s.get(b("c")));
            }
        }
    }

    @Test
    void syncWithoutWalIsRefusedAndBadArgumentsChangeNothing() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WriteOptions.defaults().sync(true).disableWal(true));
        assertTrue(e.getMessage().contains("sync") && e.getMessage().contains("WAL"), e.getMessage());
        try (LsmStore s = LsmStore.open(dir)) {
            assertThrows(IllegalArgumentException.class, () -> s.put(b("k"), b("v"), null));
            assertThrows(IllegalArgumentException.class, () -> s.write(new WriteBatch().put(b("k"), b("v")), null));
            assertNull(s.get(b("k")));
            assertFalse(WriteOptions.defaults().isSync());
            assertEquals(WriteOptions.defaults().sync(true), WriteOptions.defaults().sync(true));
        }
    }
}
