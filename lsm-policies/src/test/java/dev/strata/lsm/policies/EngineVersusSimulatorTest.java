package dev.strata.lsm.policies;

import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import dev.strata.lsm.testkit.TestScale;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * The real store and the simulator run the same policy objects. For each stack policy the
 * store ingests unique random keys of equal-size records through 40 flushes of a 256 KiB
 * memtable (400 in the slow lane, EngineVersusSimulatorTest at multiplier 3); the simulator replays the same flush lengths (the store
 * reports each table's size through a {@link StoreListener}) with the engine's
 * flush-then-merge accounting.
 *
 * <p>Two simulated figures are printed: the <b>uncorrected</b> one (the pure model: a merge
 * of j tables is as long as their sum) and a corrected one that also knows the engine's
 * fixed cost per table. The assertion is on the uncorrected figure, with a bound derived
 * from that fixed cost o, measured from the engine's own writer: an engine component built
 * from f flushes of at least ℓ bytes each is shorter than the model's by (f − 1)·o at most,
 * so every byte count the model adds up is at most ℓ / (ℓ − o) times the engine's, and the
 * model's write amplification errs upward by at most o / (ℓ − o) (plus 1% for bloom and
 * page rounding).
 *
 * <p>The component count is checked after every flush, from the writer thread, against the
 * policy's bound (k; concurrent's max-component-count; prefix's flow-control bound). Eager
 * and exploring decide inside the flush, so their count changes only when a flush installs
 * and each of those states is observed. Prefix and concurrent merge in the background. To
 * compare every policy's decisions with the simulator's (which applies merges instantly) the
 * writer flushes itself at the memtable size and waits for the merges after each flush, so no
 * flush installs while a merge or another flush runs. Their behaviour when merges
 * lag is covered by {@code FlowControlTest} and {@code FlowControlStoreTest}.
 */
@SlowTest
class EngineVersusSimulatorTest {
    private static final int FLUSHES = TestScale.scaled(40);
    private static final long MEMTABLE = 256 * 1024;
    private static final long PREFIX_MAX = 4L << 20;
    private static final int PREFIX_TOLERANCE = 4;

    @TempDir
    Path tmp;

    static Stream<Arguments> cases() {
        String only = System.getProperty("strata.evs.policy");
        List<Arguments> all = new ArrayList<>();
        all.add(Arguments.of("constant", Map.of("k", "4"), 4, false));
        all.add(Arguments.of("bigtable", Map.of("k", "4"), 4, false));
        all.add(Arguments.of("minlatency", Map.of("k", "3"), 3, false));
        all.add(Arguments.of("binomial", Map.of("k", "3"), 3, false));
        all.add(Arguments.of("exploring", Map.of("k", "3"), 3, false));
        all.add(Arguments.of("prefix", Map.of("max-mergable-component-size", String.valueOf(PREFIX_MAX),
                "max-tolerance-component-count", String.valueOf(PREFIX_TOLERANCE)), -1, true));
        all.add(Arguments.of("concurrent", Map.of("max-component-count", "8"), 8, true));
        return all.stream().filter(a -> only == null || only.equals(a.get()[0]));
    }

    /**
     * The engine's fixed cost of one more table, measured with the engine's own writer:
     * two tables of {@code records} entries minus one table of twice as many. It is what a
     * merge saves by writing one table instead of several (footer, index root, bloom and
     * last-leaf rounding).
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
            dev.strata.lsm.sstable.SSTableWriter w = new dev.strata.lsm.sstable.SSTableWriter(f, TableOptions.of(config));
            long seq = records;
            for (Map.Entry<byte[], byte[]> e : sorted.entrySet()) {
                w.add(e.getKey(), seq--, dev.strata.lsm.sstable.EntryType.PUT, e.getValue());
            }
            return w.finish().endOffset();
        }
    }

    /**
     * Prefix's component bound with tolerance t and limit M after flushes of at least ℓ:
     * below t in the run it would merge, a chain of at most ceil(log_2.2(M / ℓ)) + 1 starts
     * failing the 1.2 ratio, and the components above M (at most total / M).
     */
    private static int prefixBound(long minFlush, long totalFlushed) {
        int chain = (int) Math.ceil(Math.log((double) PREFIX_MAX / minFlush) / Math.log(2.2)) + 1;
        return PREFIX_TOLERANCE + chain + (int) (totalFlushed / PREFIX_MAX) + 1;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void engineWriteAmplificationMatchesSimulator(String policy, Map<String, String> params, int bound,
                                                  boolean settleAfterFlush) throws Exception {
        List<Long> flushSizes = new java.util.concurrent.CopyOnWriteArrayList<>();
        StoreConfig config = StoreConfig.builder()
                // The writer flushes itself at MEMTABLE bytes (below); the store never does on its own.
                .memtableBytes(4 * MEMTABLE)
                .bloomBitsPerKey(10)
                .blockCacheBytes(0)
                .mergePolicy(policy, params)
                .listener(new StoreListener() {
                    @Override
                    public void flushed(long flushNumber, long tableBytes, long mergedBytes) {
                        flushSizes.add(tableBytes);
                    }
                })
                .build();
        Random rnd = new Random(policy.hashCode());
        byte[] value = new byte[100];
        StoreStats stats;
        int maxSeen = 0;
        AtomicInteger checks = new AtomicInteger();
        List<String> violations = new ArrayList<>();
        try (LsmStore store = LsmStore.open(tmp.resolve(policy), config);
             // Held for the run: bottommost merges then keep every sequence number (docs/engine.md,
             // "Sequence numbers in bottommost outputs"), so every entry keeps one size through
             // every merge, as the simulator's byte counts assume (zeroing shrank the engine's
             // bottom outputs by their tags: exploring +11.5% against the model).
             dev.strata.lsm.Snapshot keepSequenceNumbers = store.snapshot()) {
            byte[] key = new byte[16];
            int seen = 0;
            while (flushSizes.size() < FLUSHES) {
                for (int i = 0; i < 100; i++) {
                    rnd.nextBytes(key);
                    rnd.nextBytes(value);
                    store.put(key.clone(), value.clone());
                }
                if (store.stats().memtableBytes() >= MEMTABLE) {
                    // One flush at a time, each decided on the tree its predecessor's merges left,
                    // as the simulator applies them: a flush the store started on its own could
                    // install while those merges still run, or beside another flush (a loaded
                    // machine made prefix +16% and bigtable -7%).
                    store.flush();
                    store.awaitMerges();
                }
                if (flushSizes.size() > seen) {
                    seen = flushSizes.size();
                    if (settleAfterFlush) {
                        store.awaitMerges();
                    }
                    int count = store.stats().componentCount();
                    checks.incrementAndGet();
                    maxSeen = Math.max(maxSeen, count);
                    long total = flushSizes.stream().mapToLong(Long::longValue).sum();
                    long min = flushSizes.stream().mapToLong(Long::longValue).min().orElse(1);
                    int limit = bound > 0 ? bound : prefixBound(min, total);
                    if (count > limit) {
                        violations.add("after flush " + seen + ": " + count + " components > " + limit);
                    }
                }
            }
            store.flush();
            store.awaitMerges();
            stats = store.stats();
            assertEquals(0, stats.policyErrors(), "policy errors");
        }
        assertTrue(violations.isEmpty(), policy + " exceeded its bound: " + violations);
        // The writer polls after it sees a flush: a writer stopped by flow control, or one the
        // scheduler delays while the flush lane installs the next flush, may see two flushes
        // install before it runs again (measured: 107 of 120 checks in a loaded full build).
        assertTrue(checks.get() >= FLUSHES / 2,
                "the count was checked after (nearly) every flush: " + checks.get());
        assertEquals(stats.flushCount(), flushSizes.size(), "every flush reported");

        Path lengths = tmp.resolve("flushes.txt");
        Files.writeString(lengths, flushSizes.stream().map(String::valueOf).collect(Collectors.joining("\n")));
        long records = stats.lastSequence() / flushSizes.size();
        long overhead = fixedTableOverhead(config, records);
        // The last table is the partial memtable store.flush() wrote; it is merged at most once.
        long minFlush = flushSizes.subList(0, flushSizes.size() - 1).stream().mapToLong(Long::longValue).min()
                .orElseThrow();
        SimulationResult pure = Simulator.of(policy, params, Semantics.FLUSH_THEN_MERGE,
                FlushLengths.parse("file:" + lengths, 0)).run(flushSizes.size(), new long[0]);
        SimulationResult corrected = Simulator.of(policy, params, Semantics.FLUSH_THEN_MERGE,
                FlushLengths.parse("file:" + lengths, 0)).componentOverhead(overhead).run(flushSizes.size(), new long[0]);
        double engineWa = stats.writeAmplification();
        double pureError = (pure.writeAmplification() - engineWa) / engineWa;
        double correctedError = (corrected.writeAmplification() - engineWa) / engineWa;
        // The overhead is a difference of two page-aligned table sizes, so it is known to one page:
        // the same code measured 16 KiB and 20 KiB in two runs (records per flush differ with
        // timing), and exploring then missed the bound by 0.08% in a full build.
        double allowed = (double) (overhead + config.pageSize()) / (minFlush - overhead) + 0.01;
        if (settleAfterFlush) {
            // Prefix and concurrent merge in the background. With one flush at a time (above) the
            // run no longer depends on timing (every policy's figures the same in three runs:
            // prefix +2.89% uncorrected, concurrent +8.96%); concurrent's larger
            // gap is its own decisions on the engine's view against the simulator's, not timing.
            allowed += 0.05;
        }
        System.out.printf("%-10s %s flushes=%d table=%d B overhead=%d B (%.1f%%): engine WA %.3f, simulated "
                        + "uncorrected %.3f (%+.2f%%), corrected %.3f (%+.2f%%); bound %.2f%%; max %d components in %d checks%n",
                policy, params, flushSizes.size(), minFlush, overhead, 100.0 * overhead / minFlush, engineWa,
                pure.writeAmplification(), 100 * pureError, corrected.writeAmplification(), 100 * correctedError,
                100 * allowed, maxSeen, checks.get());
        assertTrue(pureError >= -0.01 && pureError <= allowed, String.format(
                "%s: uncorrected simulated WA %.3f vs engine %.3f (%+.2f%%), allowed -1%%..%.2f%%", policy,
                pure.writeAmplification(), engineWa, 100 * pureError, 100 * allowed));
    }
}
