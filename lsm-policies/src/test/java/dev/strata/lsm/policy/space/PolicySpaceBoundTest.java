package dev.strata.lsm.policy.space;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.version.TableFiles;
import org.junit.jupiter.api.io.TempDir;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * Issue 9, for every policy that merges: crash-and-reopen cycles at constant live data
 * (random overwrites of a fixed key space, each cycle ended by a close that leaves the
 * memtable to WAL recovery, so every reopen flushes a table of random size) keep the table
 * files within a bound, and {@link StoreStats} reports exactly the table files in the
 * directory and a space amplification within 10% of the true one. The eager policies
 * merge the recovery flush into older components during the open, before the orphan
 * sweep: the sweep used to delete those obsolete tables behind the table files' back,
 * leaking their descriptors and counting them in {@link StoreStats#tableFileBytes()}.
 * ({@code no-merge} is left out: it never merges, so its growth is unbounded by design.)
 */
@SlowTest
class PolicySpaceBoundTest {
    /**
     * The live data and memtable of the issue: 8,192 keys and 1 MiB. (A quarter of each was
     * tried for the fast lane and made the live-bytes estimate, hence the reported SA, miss the
     * 10% tolerance now and then: with two memtables' worth of live data the estimate depends
     * on where flushes happen to fall.)
     */
    private static final int KEYS = 8192;
    private static final long MEMTABLE_BYTES = 1 << 20;
    private static final int KEY_BYTES = 16;
    private static final int VALUE_BYTES = 240;
    private static final long LIVE_BYTES = (long) KEYS * (KEY_BYTES + VALUE_BYTES);
    private static final int CYCLES = 12;
    private static final int MIN_PUTS_PER_CYCLE = 1000;
    private static final int MAX_PUTS_PER_CYCLE = 9_000;
    /**
     * Table bytes per live byte allowed once merges are done: the bounded-depth policies
     * keep k = 5 components of at most the live data each, plus page and index overhead.
     */
    private static final double MAX_SPACE_AMPLIFICATION = 6.0;
    private static final double SA_TOLERANCE = 0.10;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(KEY_BYTES).putLong(0x5354524154414b45L).putLong(i).array();
    }

    /**
     * Five policies in the fast lane (the k-bounded stacks constant and binomial, prefix,
     * concurrent, size-tiered); bigtable, exploring and minlatency too in the slow lane
     * (PolicySpaceBoundTest at multiplier 3).
     */
    static java.util.stream.Stream<String> policies() {
        java.util.stream.Stream<String> fast = java.util.stream.Stream.of("constant", "binomial", "prefix",
                "concurrent", "size-tiered");
        return TestScale.multiplier() > 1
                ? java.util.stream.Stream.concat(fast, java.util.stream.Stream.of("bigtable", "exploring", "minlatency"))
                : fast;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void crashCyclesKeepTablesBoundedAndReportedExactly(String policy, @TempDir Path dir) throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(MEMTABLE_BYTES).mergePolicy(policy, Map.of()).build();
        SplittableRandom random = new SplittableRandom(9);
        byte[] value = new byte[VALUE_BYTES];
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < KEYS; i++) {
                random.nextBytes(value);
                store.put(key(i), value);
            }
        }
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            try (LsmStore store = LsmStore.open(dir, config)) {
                int puts = MIN_PUTS_PER_CYCLE + random.nextInt(MAX_PUTS_PER_CYCLE - MIN_PUTS_PER_CYCLE);
                for (int i = 0; i < puts; i++) {
                    random.nextBytes(value);
                    store.put(key(random.nextInt(KEYS)), value);
                }
                store.awaitMerges();
                awaitObsoleteTablesDeleted(store);
                long onDisk = tableBytes(dir);
                StoreStats s = store.stats();
                double trueRatio = (double) onDisk / LIVE_BYTES;
                String what = policy + " cycle " + cycle + ": " + onDisk + " table bytes, true SA " + trueRatio + ", " + s;
                assertEquals(onDisk, s.tableFileBytes(), what);
                assertEquals(trueRatio, s.spaceAmplification(), trueRatio * SA_TOLERANCE, what);
                assertTrue(trueRatio <= MAX_SPACE_AMPLIFICATION, what);
            }
        }
    }

    private static long tableBytes(Path dir) throws IOException {
        long sum = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(TableFiles.SUFFIX)).toList()) {
                try {
                    sum += Files.size(p);
                } catch (NoSuchFileException e) {
                    // Deleted meanwhile.
                }
            }
        }
        return sum;
    }

    /** Waits until the directory holds only the tables of the current version. */
    private static void awaitObsoleteTablesDeleted(LsmStore store) throws Exception {
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
            assertTrue(System.nanoTime() < deadline, "obsolete tables not deleted: live " + live + ", present " + present);
            Thread.sleep(5);
        }
    }
}
