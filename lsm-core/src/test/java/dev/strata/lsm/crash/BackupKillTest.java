package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.backup.BackupInfo;
import dev.strata.lsm.backup.Backups;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * SIGKILLs a child JVM taking backups of a store it writes ({@link BackupKillChild}) at a
 * random point of a {@code Backups.create} (timed from the previous one: the checkpoint, the
 * copies into {@code shared/}, the list's replacement) and checks after every kill that every
 * acknowledged backup is still listed and verifies, at most the one in flight was added, the
 * newest backups restore into stores that hold a prefix of the writes (every key up to one,
 * at least those acknowledged before the backup began; with column families the same prefix
 * in both families), and the next child's backups succeed. At the end a backup taken here
 * must leave none of the killed backups' temporary directories beside the store.
 *
 * <p>The fast lane kills 2 times per variant; BackupKillTest at multiplier 3 {@code 3 *
 * strata.test.multiplier} times. Replay with {@code -Dstrata.test.seed=N}.
 */
@DisabledOnOs(OS.WINDOWS)
@SlowTest
class BackupKillTest {
    @TempDir
    Path tmp;

    @Test
    void aKilledBackupLeavesTheEarlierOnesIntact() throws Exception {
        run(false);
    }

    @Test
    void aKilledBackupOfAStoreWithColumnFamiliesLeavesTheEarlierOnesIntact() throws Exception {
        run(true);
    }

    private void run(boolean families) throws Exception {
        long seed = TestSeed.orDefault(System.nanoTime());
        Random rnd = new Random(seed);
        String replay = "seed " + seed + (families ? ", families" : "");
        int kills = TestScale.multiplier() > 1 ? 3 * TestScale.multiplier() : 2;
        Path dir = tmp.resolve("store");
        Path backupDir = tmp.resolve("backups");
        // Per acknowledged backup id: the last key acknowledged before its create began.
        Map<Long, Long> acknowledged = new HashMap<>();
        long nextKey = 1;
        int inFlightListed = 0;
        for (int kill = 0; kill < kills; kill++) {
            String what = replay + ", kill " + kill;
            List<String> lines;
            try (KilledChild child = KilledChild.start(BackupKillChild.class, tmp.resolve("child-" + kill + ".err"),
                    dir.toString(), backupDir.toString(), families ? "family" : "default", Long.toString(nextKey))) {
                int at = child.await(0, l -> l.startsWith("C "), 60_000, "a first backup");
                long createMs = Long.parseLong(child.lines().get(at).split(" ")[2]);
                child.await(at + 1, l -> l.startsWith("S "), 60_000, "a second backup");
                Thread.sleep(rnd.nextInt((int) (createMs * 13 / 10) + 3));
                lines = child.kill();
            }
            long startedAcked = -1;
            boolean inFlight = false;
            for (String l : lines) {
                String[] w = l.split(" ");
                if (w[0].equals("S")) {
                    startedAcked = Long.parseLong(w[1]);
                    inFlight = true;
                } else if (w[0].equals("C")) {
                    acknowledged.put(Long.parseLong(w[1]), startedAcked);
                    inFlight = false;
                }
            }
            Backups backups = Backups.open(backupDir);
            List<BackupInfo> listed = backups.list();
            List<Long> ids = listed.stream().map(BackupInfo::id).toList();
            assertTrue(ids.containsAll(acknowledged.keySet()), what + ": acknowledged backups " + acknowledged.keySet()
                    + " not all listed: " + ids);
            int extra = ids.size() - acknowledged.size();
            assertTrue(extra == 0 || (extra == 1 && inFlight), what + ": listed " + ids + ", acknowledged "
                    + acknowledged.keySet() + (inFlight ? " and one in flight" : ""));
            if (extra == 1) {
                long id = ids.get(ids.size() - 1);
                acknowledged.put(id, startedAcked);
                inFlightListed++;
            }
            for (long id : ids) {
                backups.verify(id);
            }
            // Restoring copies the whole store: the two newest backups.
            for (long id : ids.subList(Math.max(0, ids.size() - 2), ids.size())) {
                Path restored = tmp.resolve("restored-" + kill + "-" + id);
                backups.restore(id, restored);
                long last = prefix(restored, families, what + ", backup " + id);
                assertTrue(last >= acknowledged.get(id), what + ": backup " + id + " holds keys up to " + last
                        + ", but " + acknowledged.get(id) + " were acknowledged before it began");
                deleteTree(restored);
            }
            nextKey = prefix(dir, families, what + ", the store") + 1;
        }
        try (LsmStore store = LsmStore.open(dir, BackupKillChild.config(families))) {
            Backups backups = Backups.open(backupDir);
            BackupInfo info = backups.create(store);
            backups.verify(info.id());
        }
        try (Stream<Path> s = Files.list(tmp)) {
            List<String> left = s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".store.backup-"))
                    .toList();
            assertEquals(List.of(), left, replay + ": killed backups' temporary directories were left beside the store");
        }
        System.out.printf("backup kills (%s): %d, in-flight backup listed %d%n", replay, kills, inFlightListed);
    }

    /** Opens the store at {@code dir}; checks it holds keys 1..n with their values (in both families); returns n. */
    private static long prefix(Path dir, boolean families, String what) {
        try (LsmStore store = LsmStore.open(dir, BackupKillChild.config(families))) {
            long n = check(store, store.defaultColumnFamily(), "default", what);
            if (families) {
                ColumnFamily a = store.columnFamily("a");
                assertEquals(n, check(store, a, "a", what), what + ": the families hold different prefixes");
            }
            return n;
        }
    }

    private static long check(LsmStore store, ColumnFamily family, String name, String what) {
        long n = 0;
        try (Cursor c = store.scan(family, null, null)) {
            while (c.next()) {
                n++;
                assertArrayEquals(BackupKillChild.key(n), c.key(), what + ": family " + name + " misses key " + n
                        + " (found " + new String(c.key(), StandardCharsets.US_ASCII) + ")");
                assertArrayEquals(BackupKillChild.value(n, name), c.value(), what + ": family " + name + ", key " + n);
            }
        }
        return n;
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
