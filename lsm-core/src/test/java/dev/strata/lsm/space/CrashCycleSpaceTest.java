package dev.strata.lsm.space;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 9: repeated crash-and-reopen cycles at constant live data must not make the
 * directory grow without bound, and {@link StoreStats#spaceAmplification()} must report
 * what is really on disk over what is really live.
 *
 * <p>A cycle overwrites random keys of a fixed key space (so live data is constant), then
 * closes the store without flushing (the WAL mode is async: close leaves the active
 * memtable in the WAL, as a kill would) and reopens it, so every cycle ends with a small
 * recovery flush among the full memtable flushes.
 */
class CrashCycleSpaceTest {
    private static final int KEYS = 8192;
    private static final int KEY_BYTES = 16;
    private static final int VALUE_BYTES = 240;
    private static final long LIVE_BYTES = (long) KEYS * (KEY_BYTES + VALUE_BYTES);
    /** 20 in the fast lane, 60 in the slow lane (CrashCycleSpaceSlowTest). */
    private static final int CYCLES = TestScale.scaled(20);
    /** Relative error allowed between the reported and the true space amplification. */
    private static final double SA_TOLERANCE = 0.10;
    /**
     * Table bytes allowed per live byte once merges are done: size-tiered's default bound
     * (runs above the oldest at most twice its size) plus page and index overhead.
     */
    private static final double MAX_SPACE_AMPLIFICATION = 3.5;
    private static final int MAX_PUTS_PER_CYCLE = 9_000;

    static StoreConfig config(String policy) {
        return StoreConfig.builder().memtableBytes(1 << 20).mergePolicy(policy, Map.of()).build();
    }

    static byte[] key(int i) {
        return ByteBuffer.allocate(KEY_BYTES).putLong(0x5354524154414b45L).putLong(i).array();
    }

    static long tableBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(TableFiles.SUFFIX)).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (java.nio.file.NoSuchFileException e) {
                    return 0; // an obsolete table deleted meanwhile
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).sum();
        }
    }

    /** Waits until the directory holds only the tables of the current version (obsolete ones go asynchronously). */
    static void awaitObsoleteTablesDeleted(LsmStore store) throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            Set<String> live = java.util.Arrays.stream(store.stats().liveTableFileNumbers())
                    .mapToObj(TableFiles::fileName).collect(Collectors.toSet());
            Set<String> present;
            try (Stream<Path> files = Files.list(store.directory())) {
                present = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(TableFiles.SUFFIX))
                        .collect(Collectors.toSet());
            }
            if (live.equals(present)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("obsolete tables not deleted: live " + live + ", present " + present);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static List<Long> runSizes(LsmStore store) {
        List<Long> out = new ArrayList<>();
        for (List<dev.strata.lsm.version.Run> level : dev.strata.lsm.TestAccess.engine(store).currentVersion().levels()) {
            for (dev.strata.lsm.version.Run r : level) {
                out.add(r.components().stream().mapToLong(c -> c.meta().sizeBytes()).sum() / 1024);
            }
        }
        return out;
    }

    /** One reading after a cycle: table bytes in the directory, and the store's stats. */
    record Reading(int cycle, long tableBytes, StoreStats stats, List<Long> runKiB) {
        double trueRatio() {
            return (double) tableBytes / LIVE_BYTES;
        }

        @Override
        public String toString() {
            return String.format("cycle %d: %d table bytes, true SA %.3f, runs (KiB) %s, %s", cycle, tableBytes,
                    trueRatio(), runKiB, stats);
        }
    }

    /**
     * Loads the key space, then runs {@code cycles} cycles of random overwrites (a random
     * count, so the recovery flush that ends a cycle has a random size) each ended by a
     * close that leaves the memtable to WAL recovery; returns a reading after each cycle,
     * taken once merges are done and obsolete tables deleted.
     */
    static List<Reading> crashCycles(Path dir, String policy, int cycles) throws IOException {
        SplittableRandom random = new SplittableRandom(9);
        byte[] value = new byte[VALUE_BYTES];
        try (LsmStore store = LsmStore.open(dir, config(policy))) {
            for (int i = 0; i < KEYS; i++) {
                random.nextBytes(value);
                store.put(key(i), value);
            }
        }
        List<Reading> readings = new ArrayList<>();
        for (int cycle = 0; cycle < cycles; cycle++) {
            LsmStore store = LsmStore.open(dir, config(policy));
            try {
                int puts = 1000 + random.nextInt(MAX_PUTS_PER_CYCLE - 1000);
                for (int i = 0; i < puts; i++) {
                    random.nextBytes(value);
                    store.put(key(random.nextInt(KEYS)), value);
                }
                store.awaitMerges();
                awaitObsoleteTablesDeleted(store);
                Reading r = new Reading(cycle, tableBytes(dir), store.stats(), runSizes(store));
                System.out.println(policy + " " + r);
                readings.add(r);
            } finally {
                store.close();
            }
        }
        return readings;
    }

    @Test
    void reportedSpaceAmplificationIsTableBytesOverLiveBytes(@TempDir Path dir) throws IOException {
        for (Reading r : crashCycles(dir, "size-tiered", TestScale.scaled(8))) {
            assertEquals(r.trueRatio(), r.stats().spaceAmplification(), r.trueRatio() * SA_TOLERANCE, r.toString());
        }
    }

    @Test
    void sizeTieredDirectoryStaysBoundedOverCrashCycles(@TempDir Path dir) throws IOException {
        List<Reading> readings = crashCycles(dir, "size-tiered", CYCLES);
        for (Reading r : readings) {
            assertTrue(r.tableBytes() <= MAX_SPACE_AMPLIFICATION * LIVE_BYTES,
                    "table bytes above " + MAX_SPACE_AMPLIFICATION + "x the live bytes at " + r);
        }
    }
}
