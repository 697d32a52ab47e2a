package dev.strata.lsm.bench.designspace;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.bench.workload.DiskUsage;
import dev.strata.lsm.bench.workload.RandomPermutation;
import dev.strata.lsm.bench.workload.RecordFormat;
import dev.strata.lsm.bench.workload.ZipfianGenerator;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.policy.MergePolicies;
import org.HdrHistogram.Histogram;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One strategy through the design-space paper's base experiment (seed 003 §4, FAMILIES.md
 * §4.3) on a fresh store: unique uniform inserts, then deletes of a share of the keys, then
 * an update mix (updates of existing keys and new inserts), then point lookups and range
 * queries. One thread writes; the store has {@link Settings#mergeThreads()} merge threads, or
 * the policy's own {@code MergePolicyFactory.mergeThreads()} (Spooky: 2), else one. Every figure is a delta over
 * its phase, from the store's own counters, a merge listener and a sampler of the table
 * bytes and of the directory's bytes (every file, tables being written and the WAL
 * included: the physical size Spooky's space checks read) every {@code sampleMillis}.
 */
final class DesignSpaceRun {
    /** The experiment's fixed shape. */
    record Settings(long records, int keySize, int entryBytes, long memtableBytes, double deleteShare,
                    int updatesPerInsert, boolean zipfHotUpdates, long updateOps, long lookups, int rangeQueries,
                    int rangeLength, long sampleMillis, long seed, Map<String, String> params, Integer mergeThreads) {
    }

    /** Figures of one phase. */
    record Phase(String name, long ops, double seconds, double opsPerSecond, double writeP50Micros,
                 double writeP99Micros, double writeMaxMicros, long compactions, long moves, double compactionMeanMillis,
                 double compactionP50Millis, double compactionP99Millis, double dataMovement, double writeAmplification,
                 double peakSpaceAmplification, double meanSpaceAmplification, long tombstonesLeft, int[] componentsPerLevel,
                 long flushBytesWritten, long mergeBytesRead, long mergeBytesWritten, double compactionWriteAmplification,
                 double peakDirectorySpaceAmplification, double peakDirectoryMegabytes, long[] bytesWrittenByLevel,
                 Map<String, Long> bytesWrittenByKind) {
    }

    /** Everything about one strategy. */
    record Result(String preset, String policy, Map<String, String> params, List<Phase> phases,
                  double pointLookupsPerSecond, double rangeQueriesPerSecond, long pointLookupHits,
                  List<double[]> spaceOverTime, int mergeThreads) {
    }

    private final String preset;
    private final String policy;
    private final Map<String, String> params;
    private final Settings s;
    private final Path dir;
    private final RecordFormat format;
    private final Histogram mergeNanos = new Histogram(3);
    private final AtomicLong compactions = new AtomicLong();
    private final AtomicLong moves = new AtomicLong();
    private final AtomicLong liveKeys = new AtomicLong();
    private final List<double[]> spaceOverTime = new ArrayList<>();
    private long startNanos;
    private double peakSa;
    private double saSum;
    private long saSamples;
    private double peakDirSa;
    private long peakDirBytes;

    /**
     * @param preset the label, as given: a policy name, optionally followed by
     *               {@code :name=value+name=value} parameters of this preset only
     * @param policy the registered policy name
     * @param params every parameter the policy runs with
     */
    DesignSpaceRun(String preset, String policy, Map<String, String> params, Settings settings, Path dir) {
        this.preset = preset;
        this.policy = policy;
        this.params = Map.copyOf(params);
        this.s = settings;
        this.dir = dir;
        this.format = new RecordFormat(settings.keySize(), settings.entryBytes() - settings.keySize(), settings.seed());
    }

    Result run() {
        StoreListener listener = new StoreListener() {
            @Override
            public void merged(int inputs, long bytesWritten, long nanos) {
                if (bytesWritten == 0) {
                    moves.incrementAndGet();
                    return;
                }
                compactions.incrementAndGet();
                synchronized (mergeNanos) {
                    mergeNanos.recordValue(Math.max(1, nanos));
                }
            }
        };
        StoreConfig config = StoreConfig.builder().memtableBytes(s.memtableBytes()).maxImmutableMemtables(1)
                .backgroundThreads(mergeThreads()).blockCacheBytes(8L << 20).mergePolicy(policy, params).listener(listener).build();
        List<Phase> phases = new ArrayList<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "design-space-sampler");
            t.setDaemon(true);
            return t;
        });
        try (LsmStore store = LsmStore.open(dir, config)) {
            startNanos = System.nanoTime();
            sampler.scheduleAtFixedRate(() -> sample(store), 0, s.sampleMillis(), TimeUnit.MILLISECONDS);
            RandomPermutation order = new RandomPermutation(s.records(), s.seed());
            SplittableRandom random = new SplittableRandom(s.seed() * 31 + 7);

            phases.add(phase(store, "inserts", s.records(), i -> {
                long r = order.apply(i);
                store.put(format.key(r), format.value(r, 0));
                liveKeys.incrementAndGet();
            }));

            long deletes = Math.round(s.records() * s.deleteShare());
            RandomPermutation victims = new RandomPermutation(s.records(), s.seed() + 1);
            if (deletes > 0) { // with --delete-share 0 there is no deletes phase
                phases.add(phase(store, "deletes", deletes, i -> {
                    store.delete(format.key(victims.apply(i)));
                    liveKeys.decrementAndGet();
                }));
            }

            long[] nextNew = {s.records()};
            long deletedBelow = deletes;
            int every = s.updatesPerInsert() + 1;
            HotSet hot = s.zipfHotUpdates() ? new HotSet(s.records(), s.updateOps(), new SplittableRandom(s.seed() + 5))
                    : null;
            phases.add(phase(store, "updates", s.updateOps(), i -> {
                if (i % every == s.updatesPerInsert()) {
                    long r = nextNew[0]++;
                    store.put(format.key(r), format.value(r, 1));
                    liveKeys.incrementAndGet();
                } else {
                    // An existing key: one not deleted (victims' first `deletes` positions are gone).
                    long r = hot != null ? hot.next(i)
                            : victims.apply(deletedBelow + random.nextLong(s.records() - deletedBelow));
                    store.put(format.key(r), format.value(r, 2 + i));
                }
            }));

            long hits = 0;
            long t0 = System.nanoTime();
            for (long i = 0; i < s.lookups(); i++) {
                long r = random.nextLong(nextNew[0]);
                hits += store.get(format.key(r)) != null ? 1 : 0;
            }
            double lookupRate = s.lookups() / ((System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            for (int q = 0; q < s.rangeQueries(); q++) {
                long r = random.nextLong(nextNew[0]);
                try (Cursor c = store.scan(format.key(r), null)) {
                    for (int n = 0; n < s.rangeLength() && c.next(); n++) {
                        c.value();
                    }
                }
            }
            double rangeRate = s.rangeQueries() / ((System.nanoTime() - t0) / 1e9);
            sampler.shutdownNow();
            synchronized (spaceOverTime) {
                return new Result(preset, policy, params, phases, lookupRate, rangeRate, hits,
                        List.copyOf(spaceOverTime), mergeThreads());
            }
        } finally {
            sampler.shutdownNow();
        }
    }

    /**
     * Zipf 0.99 updates over a hot set of a tenth of the first {@code records} keys, a
     * contiguous key range (so that only the groups of a partitioned merge covering it receive
     * data), moving to a new random place every fifth of the phase; ranks are scrambled
     * within the range so the hottest keys are not neighbours.
     */
    static final class HotSet {
        private final long records;
        private final long window;
        private final long opsPerMove;
        private final SplittableRandom random;
        private final ZipfianGenerator zipf;
        private long start;
        private long moves = -1;

        HotSet(long records, long ops, SplittableRandom random) {
            this.records = records;
            this.window = Math.max(1, records / 10);
            this.opsPerMove = Math.max(1, ops / 5);
            this.random = random;
            this.zipf = new ZipfianGenerator(0.99, random);
            zipf.prepare(window);
        }

        long next(long op) {
            long move = op / opsPerMove;
            if (move != moves) {
                moves = move;
                start = random.nextLong(records - window + 1);
            }
            long rank = zipf.next(window);
            return start + Math.floorMod(rank * 0x9E3779B97F4A7C15L, window);
        }
    }

    private interface Op {
        void apply(long i);
    }

    private Phase phase(LsmStore store, String name, long ops, Op op) {
        StoreStats before = store.stats();
        long compactionsBefore = compactions.get();
        long movesBefore = moves.get();
        synchronized (mergeNanos) {
            mergeNanos.reset();
        }
        synchronized (spaceOverTime) {
            peakSa = 0;
            saSum = 0;
            saSamples = 0;
            peakDirSa = 0;
            peakDirBytes = 0;
        }
        Histogram writes = new Histogram(3);
        long t0 = System.nanoTime();
        for (long i = 0; i < ops; i++) {
            long a = System.nanoTime();
            op.apply(i);
            writes.recordValue(Math.max(1, System.nanoTime() - a));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        // The phase ends with the merges its writes started: a merge still running would write
        // part of its bytes into this phase's counters and be counted by kind in the next one.
        store.awaitMerges();
        sample(store);
        StoreStats after = store.stats();
        double ingested = (double) ops * s.entryBytes();
        long mergeRead = after.io().bytesRead(IoPurpose.MERGE) - before.io().bytesRead(IoPurpose.MERGE);
        long mergeWritten = after.mergeBytesWritten() - before.mergeBytesWritten();
        long flushWritten = after.flushBytesWritten() - before.flushBytesWritten();
        double mean;
        double p50;
        double p99;
        synchronized (mergeNanos) {
            mean = mergeNanos.getTotalCount() == 0 ? 0 : mergeNanos.getMean() / 1e6;
            p50 = mergeNanos.getValueAtPercentile(50) / 1e6;
            p99 = mergeNanos.getValueAtPercentile(99) / 1e6;
        }
        double peak;
        double meanSa;
        double peakDir;
        long peakDirMb;
        synchronized (spaceOverTime) {
            peak = peakSa;
            meanSa = saSamples == 0 ? 0 : saSum / saSamples;
            peakDir = peakDirSa;
            peakDirMb = peakDirBytes;
        }
        return new Phase(name, ops, seconds, ops / seconds, writes.getValueAtPercentile(50) / 1e3,
                writes.getValueAtPercentile(99) / 1e3, writes.getMaxValue() / 1e3, compactions.get() - compactionsBefore,
                moves.get() - movesBefore, mean, p50, p99, (mergeRead + mergeWritten) / ingested,
                flushWritten == 0 ? Double.NaN : (double) (flushWritten + mergeWritten) / flushWritten, peak, meanSa,
                after.liveTombstones(), after.componentsPerLevel(), flushWritten, mergeRead, mergeWritten,
                mergeWritten / ingested, peakDir, peakDirMb / 1e6, minus(after.bytesWrittenByLevel(),
                before.bytesWrittenByLevel()), minus(after.bytesWrittenByKind(), before.bytesWrittenByKind()));
    }

    /** The store's merge threads: the experiment's, else the policy's preference, else one. */
    int mergeThreads() {
        if (s.mergeThreads() != null) {
            return s.mergeThreads();
        }
        return MergePolicies.find(policy).mergeThreads().orElse(1);
    }

    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> d = new java.util.TreeMap<>();
        after.forEach((k, v) -> {
            long delta = v - before.getOrDefault(k, 0L);
            if (delta != 0) {
                d.put(k, delta);
            }
        });
        return d;
    }

    private static long[] minus(long[] after, long[] before) {
        long[] d = after.clone();
        for (int i = 0; i < Math.min(after.length, before.length); i++) {
            d[i] -= before[i];
        }
        return d;
    }

    /** Table bytes over the live logical bytes the driver knows it holds. */
    private void sample(LsmStore store) {
        StoreStats st;
        try {
            st = store.stats();
        } catch (RuntimeException e) {
            return; // closing
        }
        long dirBytes = directoryBytes();
        if (dirBytes < 0) {
            return; // the listing raced with deletions three times: no sample this second (not a zero)
        }
        double logical = (double) liveKeys.get() * s.entryBytes();
        synchronized (spaceOverTime) {
            spaceOverTime.add(new double[] {(System.nanoTime() - startNanos) / 1e9, st.tableFileBytes() / 1e6,
                    dirBytes / 1e6});
            peakDirBytes = Math.max(peakDirBytes, dirBytes);
            if (logical >= 16L << 20) { // a tree of a few memtables: the ratio means something
                double sa = st.tableFileBytes() / logical;
                peakSa = Math.max(peakSa, sa);
                saSum += sa;
                saSamples++;
                peakDirSa = Math.max(peakDirSa, dirBytes / logical);
            }
        }
    }

    /** Bytes of every file in the store's directory now (its apparent size), or -1 if it cannot be listed. */
    private long directoryBytes() {
        try {
            return DiskUsage.apparentBytesOf(dir);
        } catch (UncheckedIOException e) {
            return -1;
        }
    }
}
