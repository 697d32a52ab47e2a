package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.RepairReport;
import dev.strata.lsm.repair.StoreRepair;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damage to the manifest never costs flushed data silently: an open fails with a
 * {@link CorruptionException} naming the manifest, deletes nothing, and a repair rebuilds
 * the manifest from the tables. A torn final record that nothing depends on is dropped.
 */
class ManifestDamageTest {
    static final int KEYS = 5000;

    @TempDir
    Path dir;

    static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(64 << 10).mergePolicy("no-merge").build();
    }

    static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(UTF_8);
    }

    static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(i % 40)).getBytes(UTF_8);
    }

    /** A closed store holding {@link #KEYS} flushed keys in many tables. */
    void fill() {
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
        }
    }

    Path manifest() throws IOException {
        return Manifest.readCurrent(new FileChannelStorageIO(), dir);
    }

    Set<String> tableFiles() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    static int countPresent(LsmStore store) {
        int present = 0;
        for (int i = 0; i < KEYS; i++) {
            byte[] v = store.get(key(i));
            if (v != null) {
                assertArrayEquals(value(i), v, "key " + i);
                present++;
            }
        }
        return present;
    }

    @Test
    void truncatedManifestFailsTheOpenAndDeletesNothing() throws IOException {
        fill();
        Set<String> before = tableFiles();
        assertTrue(before.size() > 5, "expected many tables, got " + before);
        Path manifest = manifest();
        try (FileChannel c = FileChannel.open(manifest, StandardOpenOption.WRITE)) {
            c.truncate(200);
        }
        CorruptionException e = assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config()).close());
        assertEquals(manifest, e.file(), e.getMessage());
        assertTrue(e.getMessage().contains(manifest.toString()) && e.getMessage().contains("repair"), e.getMessage());
        assertEquals(before, tableFiles(), "a failed open must not delete tables");
        // A second attempt fails the same way: the first changed nothing.
        assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config()).close());
        assertEquals(before, tableFiles());
    }

    @Test
    void flippedBitInTheLastRecordFailsTheOpenAndDeletesNothing() throws IOException {
        fill();
        Set<String> before = tableFiles();
        Path manifest = manifest();
        long size = Files.size(manifest);
        try (RandomAccessFile f = new RandomAccessFile(manifest.toFile(), "rw")) {
            f.seek(size - 3);
            int b = f.read();
            f.seek(size - 3);
            f.write(b ^ 0x10);
        }
        CorruptionException e = assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config()).close());
        assertEquals(manifest, e.file(), e.getMessage());
        assertTrue(e.offset() > 0 && e.offset() < size, "offset " + e.offset());
        assertTrue(e.getMessage().contains("offset " + e.offset()), e.getMessage());
        assertEquals(before, tableFiles());
    }

    @Test
    void missingTableIsReportedAgainstTheManifest() throws IOException {
        fill();
        String victim = tableFiles().iterator().next();
        Files.delete(dir.resolve(victim));
        Set<String> before = tableFiles();
        CorruptionException e = assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config()).close());
        assertEquals(manifest(), e.file(), e.getMessage());
        assertTrue(e.getMessage().contains(victim) && e.getMessage().contains("missing"), e.getMessage());
        assertEquals(before, tableFiles());
    }

    @Test
    void tornTailThatNothingDependsOnIsDropped() throws IOException {
        fill();
        Path manifest = manifest();
        // Half of a record that was never acknowledged: a valid-looking header, a payload cut short.
        try (FileChannel c = FileChannel.open(manifest, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            byte[] torn = new byte[40];
            torn[4] = 0;
            torn[5] = (byte) 200; // length 200, only 33 bytes follow
            torn[6] = 1;          // FULL
            for (int i = 7; i < torn.length; i++) {
                torn[i] = (byte) i;
            }
            c.write(java.nio.ByteBuffer.wrap(torn));
        }
        Set<String> before = tableFiles();
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertEquals(KEYS, countPresent(store));
        }
        assertFalse(tableFiles().isEmpty());
        assertTrue(tableFiles().containsAll(before));
    }

    /**
     * Found by {@code strata-bench torture}: a flush's manifest append fails half-written
     * (the write was never acknowledged) and the process is killed before a new manifest
     * supersedes the damaged one. The flush's table exists unreferenced, but the WAL segment
     * the intact edits replay from is still there and holds the same data: the open drops
     * the torn record and replays the WAL instead of refusing to open.
     */
    @Test
    void tornTailOfAFailedFlushEditIsDroppedWhileTheWalStillHoldsItsData() throws IOException {
        int extra = 300;
        Path crashed = dir.resolve("crashed");
        Path live = dir.resolve("live");
        StoreConfig syncConfig = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy("no-merge")
                .walMode(dev.strata.lsm.WalSyncMode.SYNC).build();
        try (LsmStore store = LsmStore.open(live, syncConfig)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            for (int i = KEYS; i < KEYS + extra; i++) {
                store.put(key(i), value(i));
            }
            // The process is killed now: copy its files as the kill leaves them.
            Files.createDirectories(crashed);
            try (Stream<Path> files = Files.list(live)) {
                for (Path p : files.toList()) {
                    if (!p.getFileName().toString().equals("LOCK")) {
                        Files.copy(p, crashed.resolve(p.getFileName()));
                    }
                }
            }
        }
        Path manifest = Manifest.readCurrent(new FileChannelStorageIO(), crashed);
        // The flush of the unflushed keys wrote its table (a stand-in under a new number) and
        // tore its manifest append: half a record, never acknowledged.
        String newest;
        try (Stream<Path> s = Files.list(crashed)) {
            newest = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst")).max(String::compareTo)
                    .orElseThrow();
        }
        Files.copy(crashed.resolve(newest), crashed.resolve("999999.sst"));
        try (FileChannel c = FileChannel.open(manifest, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            byte[] torn = new byte[40];
            torn[5] = (byte) 200;
            torn[6] = 1;
            c.write(java.nio.ByteBuffer.wrap(torn));
        }
        try (LsmStore store = LsmStore.open(crashed, syncConfig)) {
            for (int i = 0; i < KEYS + extra; i++) {
                assertArrayEquals(value(i), store.get(key(i)), "key " + i);
            }
        }
    }

    void truncateManifest() throws IOException {
        try (FileChannel c = FileChannel.open(manifest(), StandardOpenOption.WRITE)) {
            c.truncate(200);
        }
    }

    @Test
    void repairRebuildsTheManifestFromTheTables() throws IOException {
        fill();
        Set<String> before = tableFiles();
        Path damaged = manifest();
        truncateManifest();
        assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config()).close());
        RepairReport report = LsmStore.repair(dir, config());
        assertEquals(before.size(), report.tables(), report.toString());
        assertFalse(report.merged(), report.toString());
        assertTrue(Files.exists(dir.resolve(StoreRepair.LOST).resolve(damaged.getFileName())), report.toString());
        assertEquals(before, tableFiles());
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertEquals(KEYS, countPresent(store));
            store.put(key(0), value(0));
            store.flush();
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertEquals(KEYS, countPresent(store));
        }
    }

    @Test
    void repairKeepsTheRangeTombstonesOfTheTables() throws IOException {
        fill();
        try (LsmStore store = LsmStore.open(dir, config())) {
            store.deleteRange(key(100), key(200));
            store.flush();
        }
        truncateManifest();
        LsmStore.repair(dir, config());
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(i >= 100 && i < 200 ? null : value(i), store.get(key(i)), "key " + i);
            }
        }
    }

    @Test
    void repairKeepsWhatOnlyTheWalHolds() throws IOException {
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
                if (i == KEYS - 100) {
                    store.flush();
                }
            }
            // The last 99 keys are only in the WAL and the memtable when the store closes.
        }
        Path manifest = manifest();
        long size = Files.size(manifest);
        try (RandomAccessFile f = new RandomAccessFile(manifest.toFile(), "rw")) {
            f.seek(size - 1);
            int b = f.read();
            f.seek(size - 1);
            f.write(b ^ 1);
        }
        assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config()).close());
        RepairReport report = LsmStore.repair(dir, config());
        assertTrue(report.walSegments() > 0, report.toString());
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertEquals(KEYS, countPresent(store));
        }
    }

    @Test
    void repairSetsAsideACorruptTable() throws IOException {
        fill();
        truncateManifest();
        String victim = tableFiles().iterator().next();
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve(victim).toFile(), "rw")) {
            f.seek(100);
            f.write(0x5a ^ f.readByte());
        }
        RepairReport report = LsmStore.repair(dir, config());
        assertTrue(report.setAside().stream().anyMatch(s -> s.file().equals(victim) && s.reason().contains("unreadable")),
                report.toString());
        assertTrue(Files.exists(dir.resolve(StoreRepair.LOST).resolve(victim)));
        try (LsmStore store = LsmStore.open(dir, config())) {
            int present = countPresent(store);
            assertTrue(present > KEYS / 2 && present < KEYS, "present " + present);
        }
    }

    @Test
    void repairMergesTablesWhoseSequenceNumbersInterleave() throws IOException {
        StoreConfig merging = StoreConfig.builder().memtableBytes(64 << 10)
                .mergePolicy("size-tiered", java.util.Map.of("fanout", "2")).build();
        Path saved = dir.resolveSibling(dir.getFileName() + "-saved");
        Files.createDirectories(saved);
        try (LsmStore store = LsmStore.open(dir, merging)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), "old".getBytes(UTF_8));
            }
            store.flush();
            store.awaitMerges();
            // Keep copies of the tables as they are before the overwrites are merged in.
            for (String t : tableFiles()) {
                try {
                    Files.copy(dir.resolve(t), saved.resolve(t));
                } catch (java.nio.file.NoSuchFileException e) {
                    // A merge's input deleted meanwhile.
                }
            }
            // Half the keys get new values; the merge output keeps the other half's old ones,
            // so its sequence numbers span those of the saved tables.
            for (int i = 0; i < KEYS / 2; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            store.awaitMerges();
        }
        // Merge inputs whose deletion "did not happen" come back beside the merge's output.
        try (Stream<Path> s = Files.list(saved)) {
            for (Path p : s.toList()) {
                if (!Files.exists(dir.resolve(p.getFileName()))) {
                    Files.copy(p, dir.resolve(p.getFileName()));
                }
            }
        }
        truncateManifest();
        RepairReport report = LsmStore.repair(dir, merging);
        assertTrue(report.merged(), report.toString());
        try (LsmStore store = LsmStore.open(dir, merging)) {
            for (int i = 0; i < KEYS; i++) {
                byte[] v = store.get(key(i));
                assertArrayEquals(i < KEYS / 2 ? value(i) : "old".getBytes(UTF_8), v, "key " + i);
            }
        }
    }
}
