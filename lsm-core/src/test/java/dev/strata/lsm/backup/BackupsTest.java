package dev.strata.lsm.backup;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Incremental backups: create, mutate, create, restore each, verify, purge, and a crash during create. */
class BackupsTest {
    private static final int KEYS = 20_000;

    @TempDir
    Path root;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    private static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(512 << 10).mergePolicy("size-tiered", Map.of()).build();
    }

    private static void assertHolds(Path dir, TreeMap<Integer, byte[]> model) {
        try (LsmStore s = LsmStore.open(dir, config()); Cursor c = s.scan(null, null)) {
            for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
                assertTrue(c.next(), "missing key " + e.getKey());
                assertArrayEquals(key(e.getKey()), c.key());
                assertArrayEquals(e.getValue(), c.value(), "key " + e.getKey());
            }
            assertFalse(c.next());
        }
    }

    @Test
    void backupsShareUnchangedTablesRestoreVerifyAndPurge() throws IOException {
        Path backupDir = root.resolve("backups");
        Random rnd = new Random(42);
        TreeMap<Integer, byte[]> first = new TreeMap<>();
        TreeMap<Integer, byte[]> second;
        BackupInfo b1;
        BackupInfo b2;
        try (LsmStore store = LsmStore.open(root.resolve("store"), config())) {
            for (int i = 0; i < KEYS; i++) {
                byte[] v = new byte[100];
                rnd.nextBytes(v);
                store.put(key(i), v);
                first.put(i, v);
            }
            store.compactRange(null, null);
            Backups backups = Backups.open(backupDir);
            b1 = backups.create(store);
            assertEquals(b1.bytes(), b1.bytesCopied(), "the first backup copies everything");
            // 5% of the keys change, in a narrow range: a few new tables.
            second = new TreeMap<>(first);
            for (int i = 0; i < KEYS / 20; i++) {
                byte[] v = ("changed" + i).getBytes();
                store.put(key(i), v);
                second.put(i, v);
            }
            store.delete(key(KEYS - 1));
            second.remove(KEYS - 1);
            b2 = backups.create(store);
            assertTrue(b2.bytesCopied() < b2.bytes() / 2, "the second backup copies what changed: "
                    + b2.bytesCopied() + " of " + b2.bytes());
            assertEquals(List.of(b1, b2), backups.list());
        }
        Backups reopened = Backups.open(backupDir);
        assertEquals(List.of(b1, b2), reopened.list());
        reopened.verify(b1.id());
        reopened.verify(b2.id());
        reopened.restore(b1.id(), root.resolve("r1"));
        reopened.restore(b2.id(), root.resolve("r2"));
        assertHolds(root.resolve("r1"), first);
        assertHolds(root.resolve("r2"), second);
        assertThrows(IllegalArgumentException.class, () -> reopened.restore(b1.id(), root.resolve("r1")), "exists");
        assertThrows(IllegalArgumentException.class, () -> reopened.verify(99));

        reopened.purgeOldBackups(1);
        assertEquals(List.of(b2), reopened.list());
        reopened.verify(b2.id());
        reopened.restore(b2.id(), root.resolve("r2b"));
        assertHolds(root.resolve("r2b"), second);
        assertThrows(IllegalArgumentException.class, () -> reopened.restore(b1.id(), root.resolve("r1b")));
    }

    @Test
    void verifyAndRestoreFindADamagedFile() throws IOException {
        Path backupDir = root.resolve("backups");
        BackupInfo b;
        try (LsmStore store = LsmStore.open(root.resolve("store"), config())) {
            for (int i = 0; i < 5000; i++) {
                store.put(key(i), new byte[50]);
            }
            b = Backups.open(backupDir).create(store);
        }
        Path table;
        try (Stream<Path> s = Files.list(backupDir.resolve("shared"))) {
            table = s.filter(p -> p.getFileName().toString().contains(".sst.")).findFirst().orElseThrow();
        }
        try (FileChannel ch = FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, 100);
            one.flip();
            one.put(0, (byte) (one.get(0) ^ 0x40));
            ch.write(one, 100);
        }
        Backups backups = Backups.open(backupDir);
        CorruptionException e = assertThrows(CorruptionException.class, () -> backups.verify(b.id()));
        assertTrue(e.getMessage().contains(table.getFileName().toString()), e.getMessage());
        assertThrows(CorruptionException.class, () -> backups.restore(b.id(), root.resolve("restored")));
        assertFalse(Files.exists(root.resolve("restored")));
    }

    @Test
    void aBackupThatDidNotFinishLeavesTheEarlierOnesIntact() throws IOException {
        Path backupDir = root.resolve("backups");
        TreeMap<Integer, byte[]> model = new TreeMap<>();
        BackupInfo b;
        try (LsmStore store = LsmStore.open(root.resolve("store"), config())) {
            for (int i = 0; i < 5000; i++) {
                store.put(key(i), ("v" + i).getBytes());
                model.put(i, ("v" + i).getBytes());
            }
            b = Backups.open(backupDir).create(store);
        }
        // What a kill during a second create leaves: copied files no list names, a half-written list.
        Files.write(backupDir.resolve("shared").resolve("000099.sst.4096.deadbeef"), new byte[4096]);
        Files.write(backupDir.resolve("shared").resolve("000098.sst.4096.deadbeef.tmp"), new byte[100]);
        Files.write(backupDir.resolve("BACKUPS.tmp"), "strata-backups 1\nbackup 2".getBytes());
        Backups backups = Backups.open(backupDir);
        assertEquals(List.of(b), backups.list());
        try (Stream<Path> s = Files.list(backupDir.resolve("shared"))) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().contains("deadbeef")), "leftovers deleted");
        }
        assertFalse(Files.exists(backupDir.resolve("BACKUPS.tmp")));
        backups.verify(b.id());
        backups.restore(b.id(), root.resolve("restored"));
        assertHolds(root.resolve("restored"), model);
        // A damaged list is reported, not silently taken as empty.
        Files.write(backupDir.resolve("BACKUPS"), "strata-backups 1\nbackup 1 2 3 0\nend 00000000\n".getBytes());
        assertThrows(CorruptionException.class, () -> Backups.open(backupDir));
    }
}
