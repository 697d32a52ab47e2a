package dev.strata.lsm.policy;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real store and the simulator run the same policy objects: for each eager stack
 * policy at k = 3..6, the store ingests unique random keys of equal-size records through
 * at least 500 flushes; its write amplification, read from its own IO counters, must be
 * within 5% of the simulator's flush-then-merge write amplification for the same flush
 * lengths (the store reports each flush's table size through a {@link StoreListener}).
 */
class EngineVersusSimulatorTest {
    private static final int FLUSHES = Integer.getInteger("strata.evs.flushes", 500);
    private static final long MEMTABLE = Long.getLong("strata.evs.memtable", 48 * 1024);

    @TempDir
    Path tmp;

    static Stream<Arguments> cases() {
        String only = System.getProperty("strata.evs.policy");
        List<Arguments> all = new ArrayList<>();
        for (String p : List.of("constant", "bigtable", "minlatency", "binomial")) {
            for (int k = 3; k <= 6; k++) {
                if (only == null || only.equals(p)) {
                    all.add(Arguments.of(p, k));
                }
            }
        }
        return all.stream();
    }

    /**
     * The engine's fixed cost of one more table, measured with the engine's own writer:
     * two tables of {@code records} entries minus one table of twice as many. It is what a
     * merge saves by writing one table instead of several (footer, index root, bloom and
     * last-leaf rounding), and what the simulator's component-overhead model takes.
     */
    private long fixedTableOverhead(StoreConfig config, long records) throws java.io.IOException {
        return 2 * tableBytes(config, records, 1) - tableBytes(config, 2 * records, 2);
    }

    private long tableBytes(StoreConfig config, long records, long seed) throws java.io.IOException {
        Random rnd = new Random(seed);
        java.util.TreeMap<byte[], byte[]> sorted = new java.util.TreeMap<>(java.util.Arrays::compareUnsigned);
        while (sorted.size() < records) {
            byte[] k = new byte[16];
            byte[] v = new byte[100];
            rnd.nextBytes(k);
            rnd.nextBytes(v);
            sorted.put(k, v);
        }
        Path file = tmp.resolve("overhead-" + records + "-" + seed + ".sst");
        try (dev.strata.lsm.io.PageFile f = new dev.strata.lsm.io.FileChannelStorageIO().open(file,
                dev.strata.lsm.io.OpenMode.CREATE_NEW, dev.strata.lsm.io.IoPurpose.OTHER)) {
            dev.strata.lsm.sstable.SSTableWriter w = new dev.strata.lsm.sstable.SSTableWriter(f, config.tableOptions());
            long seq = records;
            for (Map.Entry<byte[], byte[]> e : sorted.entrySet()) {
                w.add(e.getKey(), seq--, dev.strata.lsm.sstable.EntryType.PUT, e.getValue());
            }
            return w.finish().endOffset();
        }
    }

    @ParameterizedTest(name = "{0} k={1}")
    @MethodSource("cases")
    void engineWriteAmplificationMatchesSimulator(String policy, int k) throws Exception {
        List<Long> flushSizes = Collections.synchronizedList(new ArrayList<>());
        StoreConfig config = StoreConfig.builder()
                .memtableBytes(MEMTABLE)
                .bloomBitsPerKey(Integer.getInteger("strata.evs.bloom", 10))
                .blockCacheBytes(0)
                .mergePolicy(policy, Map.of("k", String.valueOf(k)))
                .listener(new StoreListener() {
                    @Override
                    public void flushed(long flushNumber, long tableBytes, long mergedBytes) {
                        flushSizes.add(tableBytes);
                    }
                })
                .build();
        Random rnd = new Random(k * 31L + policy.hashCode());
        byte[] value = new byte[100];
        java.util.concurrent.atomic.AtomicLong flushedRecords = new java.util.concurrent.atomic.AtomicLong();
        StoreStats stats;
        try (LsmStore store = LsmStore.open(tmp.resolve(policy + k), config)) {
            byte[] key = new byte[16];
            while (flushSizes.size() < FLUSHES) {
                for (int i = 0; i < 500; i++) {
                    rnd.nextBytes(key);
                    rnd.nextBytes(value);
                    store.put(key.clone(), value.clone());
                }
            }
            store.flush();
            store.awaitMerges();
            stats = store.stats();
            flushedRecords.set(stats.lastSequence());
            assertEquals(0, store.stats().policyErrors(), "policy errors");
            assertTrue(stats.componentCount() <= k, "bound " + k + " held at the end: " + stats);
        }
        Path lengths = tmp.resolve("flushes.txt");
        Files.writeString(lengths, flushSizes.stream().map(String::valueOf).collect(Collectors.joining("\n")));
        long overhead = fixedTableOverhead(config, flushedRecords.get() / flushSizes.size());
        SimulationResult sim = Simulator.of(policy, Map.of("k", String.valueOf(k)), Semantics.FLUSH_THEN_MERGE,
                FlushLengths.parse("file:" + lengths, 0)).componentOverhead(overhead).run(flushSizes.size(), new long[0]);
        double engineWa = stats.writeAmplification();
        double error = Math.abs(engineWa - sim.writeAmplification()) / sim.writeAmplification();
        System.out.printf("%-10s k=%d flushes=%d engine WA %.3f simulated WA %.3f (%.2f%%), table overhead %d B%n",
                policy, k, flushSizes.size(), engineWa, sim.writeAmplification(), 100 * error, overhead);
        assertEquals(stats.flushCount(), flushSizes.size(), "every flush reported");
        assertTrue(error <= 0.05, String.format("engine WA %.3f vs simulated %.3f", engineWa, sim.writeAmplification()));
    }
}
