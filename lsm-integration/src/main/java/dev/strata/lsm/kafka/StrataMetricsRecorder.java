package dev.strata.lsm.kafka;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.StoreListener;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.io.IoPurpose;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Records a Strata state store's engine figures as Kafka Streams state-store metrics: group
 * {@code stream-state-metrics}, tags {@code thread-id}, {@code task-id} and
 * {@code strata-state-id} (Kafka's store-level tags with the {@code strata} metrics scope, as
 * its RocksDB recorder tags with {@code rocksdb-state-id}), so two tasks' stores of one name
 * never share a metric. Names are those of Kafka's RocksDB metrics where they mean the same;
 * docs/kafka-streams.md ("Metrics") lists them.
 *
 * <p>Every metric is a gauge over a snapshot the store's own thread takes in
 * {@link #record(boolean)} (at init, and at a commit or an early write of the
 * store's write buffer when the last snapshot is {@link #SNAPSHOT_INTERVAL_MS} old; the
 * {@code write-buffer-bytes} gauge alone reads its figure live): the engines' counters are summed over
 * every Strata store the state store holds (one, or one per time segment, plus a versioned
 * store's latest store), counting per Strata store from when the recorder first saw it, so
 * dropping a segment never makes a total go back. Rates are over the last
 * {@link #RATE_WINDOW_MS} ms of snapshots. A metrics reporter reading a gauge from another
 * thread reads the last snapshot and never touches a Strata store.
 *
 * <p>Lifetime: made by the store's {@code init}, {@link #close() closed} by its
 * {@code close}, which removes the metrics. Compaction times come from a
 * {@link StoreListener} that {@link #instrument(StoreConfig)} adds to the configuration the
 * store opens its Strata stores with; it is called from Strata's background threads.
 */
final class StrataMetricsRecorder implements AutoCloseable {
    /**
     * A commit takes a snapshot when the last one is at least this old: a snapshot reads every
     * Strata store's stats (pinning its version, taking its mutex briefly), too much for every
     * commit of a fast loop (under TopologyTestDriver a commit follows every record).
     */
    static final long SNAPSHOT_INTERVAL_MS = 200;

    /** The window rates are computed over, as Kafka's default two 30-second samples. */
    static final long RATE_WINDOW_MS = 30_000;

    private final StreamsMetricsImpl metrics;
    private final String taskId;
    private final String storeName;
    private final String scope;
    private final Supplier<Collection<LsmStore>> stores;
    private final LongSupplier clock;
    private final List<MetricName> added = new ArrayList<>();

    /**
     * Per Strata store: its counters when first seen, for the stores open at the first snapshot
     * (totals count from then); zeros for a store opened later (a new segment), whose counters
     * since its open all fall in the recorder's life.
     */
    private final Map<LsmStore, long[]> baselines = new IdentityHashMap<>();
    /** Whether a snapshot has been taken (stores first seen afterwards start from zero). */
    private boolean snapshotTaken;
    /** Counters of Strata stores closed (dropped segments) since: kept in the totals. */
    private final long[] retired = new long[COUNTERS];
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();

    private static final int WRITTEN = 0;
    private static final int READ = 1;
    private static final int FLUSHED = 2;
    private static final int STALL_NANOS = 3;
    private static final int COUNTERS = 4;

    private final AtomicLong compactions = new AtomicLong();
    private final AtomicLong compactionNanos = new AtomicLong();
    private final AtomicLong compactionMaxNanos = new AtomicLong();

    /** The store's write buffer bytes now (its uncommitted writes), read by the {@code write-buffer-bytes} gauge. */
    private volatile LongSupplier writeBufferBytes = () -> 0;

    private volatile Snapshot last = new Snapshot(new long[COUNTERS], new double[COUNTERS], 0, 0, 0, 0, 0, 0, "", "");

    private record Snapshot(long[] totals, double[] ratesPerSecond, double stallAvgMs, long openFiles, long keys,
                            double cacheHitRatio, double writeAmplification, double spaceAmplification,
                            String mergePolicy, String componentsPerLevel) { }

    /**
     * @param streamsMetrics what the store's context gave it; if it is not Kafka's
     *     {@link StreamsMetricsImpl} (a mock context), nothing is registered
     * @param stores the Strata stores the state store holds now; called on the store's thread only
     */
    static StrataMetricsRecorder create(StreamsMetrics streamsMetrics, String taskId, String scope, String storeName,
                                        Supplier<Collection<LsmStore>> stores) {
        StreamsMetricsImpl impl = streamsMetrics instanceof StreamsMetricsImpl m ? m : null;
        return new StrataMetricsRecorder(impl, taskId, scope, storeName, stores, System::currentTimeMillis);
    }

    StrataMetricsRecorder(StreamsMetricsImpl metrics, String taskId, String scope, String storeName,
                          Supplier<Collection<LsmStore>> stores, LongSupplier clock) {
        this.metrics = metrics;
        this.taskId = taskId;
        this.scope = scope;
        this.storeName = storeName;
        this.stores = stores;
        this.clock = clock;
        if (metrics != null) {
            register();
        }
    }

    private void register() {
        rateAndTotal("bytes-written", WRITTEN, "bytes written to the store's write-ahead log");
        rateAndTotal("bytes-read", READ, "bytes read from the store's table files by gets and scans");
        rateAndTotal("memtable-bytes-flushed", FLUSHED, "bytes of table files written by memtable flushes");
        gauge("write-stall-duration-avg", "average time writes stalled per recording (commit), in ms",
                () -> last.stallAvgMs());
        gauge("write-stall-duration-total", "total time writes stalled, in ms",
                () -> last.totals()[STALL_NANOS] / 1e6);
        gauge("block-cache-data-hit-ratio", "share of page lookups the block cache answered",
                () -> last.cacheHitRatio());
        gauge("number-open-files", "table files open", () -> (double) last.openFiles());
        gauge("estimate-num-keys", "estimated number of keys (records) the Strata stores hold", () -> (double) last.keys());
        gauge("compaction-time-avg", "average duration of merges (compactions) since the store opened, in ms",
                () -> {
                    long n = compactions.get();
                    return n == 0 ? 0.0 : compactionNanos.get() / 1e6 / n;
                });
        gauge("compaction-time-max", "longest merge (compaction) since the store opened, in ms",
                () -> compactionMaxNanos.get() / 1e6);
        gauge("write-amplification", "bytes written to table files (flushes and merges) per byte flushed",
                () -> last.writeAmplification());
        gauge("space-amplification", "table file bytes per estimated live user byte (NaN under 64 KiB live)", () -> last.spaceAmplification());
        gauge("merge-policy", "the merge policy the store runs", () -> last.mergePolicy());
        gauge("write-buffer-bytes", "bytes of the store's writes since its last commit held in its write buffer"
                + " (approximate key and value bytes plus a per-entry overhead)", () -> (double) writeBufferBytes.getAsLong());
        gauge("components-per-level", "components (runs) per level, level 0 first, comma separated",
                () -> last.componentsPerLevel());
    }

    private void rateAndTotal(String name, int counter, String what) {
        gauge(name + "-rate", "average number of " + what + " per second", () -> last.ratesPerSecond()[counter]);
        gauge(name + "-total", "total number of " + what, () -> (double) last.totals()[counter]);
    }

    private <T> void gauge(String name, String description, Supplier<T> value) {
        Gauge<T> gauge = (metricConfig, now) -> value.get();
        added.add(metrics.addStoreLevelMutableMetric(taskId, scope, storeName, name, description,
                RecordingLevel.INFO, gauge));
    }

    /**
     * What the {@code write-buffer-bytes} gauge reads (a store with a write buffer sets it at
     * init); called from any thread, it must not lock.
     */
    void writeBufferBytes(LongSupplier bytes) {
        writeBufferBytes = bytes;
    }

    /**
     * {@code config} with a listener that times merges for {@code compaction-time-*} (and
     * passes every event on to the configuration's own listener).
     */
    StoreConfig instrument(StoreConfig config) {
        StoreListener user = config.listener();
        StoreListener timing = new StoreListener() {
            @Override
            public void flushed(long flushNumber, long tableBytes, long mergedBytes) {
                if (user != null) {
                    user.flushed(flushNumber, tableBytes, mergedBytes);
                }
            }

            @Override
            public void merged(int inputs, long bytesWritten, long nanos) {
                compactions.incrementAndGet();
                compactionNanos.addAndGet(nanos);
                compactionMaxNanos.accumulateAndGet(nanos, Math::max);
                if (user != null) {
                    user.merged(inputs, bytesWritten, nanos);
                }
            }

            @Override
            public void mergeStarted(String reason) {
                if (user != null) {
                    user.mergeStarted(reason);
                }
            }

            @Override
            public void mergeEnded(String reason, boolean installed) {
                if (user != null) {
                    user.mergeEnded(reason, installed);
                }
            }
        };
        return config.toBuilder().listener(timing).build();
    }

    /**
     * Takes a snapshot of the Strata stores' figures for the gauges. Called on the store's
     * thread (its monitor held) after writes reach Strata; a Strata store failing to answer
     * leaves the last snapshot in place.
     */
    void record(boolean force) {
        if (metrics == null) {
            return;
        }
        long t = clock.getAsLong();
        if (!force && t - lastSnapshotMs < SNAPSHOT_INTERVAL_MS) {
            return;
        }
        lastSnapshotMs = t;
        Collection<LsmStore> now = stores.get();
        long[] totals = retired.clone();
        long openFiles = 0;
        long keys = 0;
        long hits = 0;
        long lookups = 0;
        long flushedBytes = 0;
        long mergedBytes = 0;
        long tableBytes = 0;
        double liveBytes = 0;
        int[] components = new int[0];
        String policy = "";
        Map<LsmStore, long[]> seen = new IdentityHashMap<>();
        try {
            for (LsmStore s : now) {
                StoreStats st = s.stats();
                long[] c = counters(st);
                long[] base = baselines.computeIfAbsent(s, k -> snapshotTaken ? new long[COUNTERS] : c);
                seen.put(s, c);
                for (int i = 0; i < COUNTERS; i++) {
                    totals[i] += c[i] - base[i];
                }
                openFiles += st.liveTableFileNumbers().length;
                keys += s.estimateKeyCount();
                hits += st.blockCacheHits();
                lookups += st.blockCacheHits() + st.blockCacheMisses();
                flushedBytes += st.flushBytesWritten();
                mergedBytes += st.mergeBytesWritten();
                tableBytes += st.tableFileBytes();
                liveBytes += st.liveLogicalBytes();
                int[] levels = st.componentsPerLevel();
                if (levels.length > components.length) {
                    components = java.util.Arrays.copyOf(components, levels.length);
                }
                for (int i = 0; i < levels.length; i++) {
                    components[i] += levels[i];
                }
                policy = s.config().mergePolicy();
            }
        } catch (StoreException e) {
            return;
        }
        // Strata stores gone since the last snapshot (dropped segments): their counts stay in the totals.
        for (Map.Entry<LsmStore, long[]> e : baselines.entrySet()) {
            if (!seen.containsKey(e.getKey())) {
                long[] lastSeen = lastCounters.getOrDefault(e.getKey(), e.getValue());
                for (int i = 0; i < COUNTERS; i++) {
                    retired[i] += lastSeen[i] - e.getValue()[i];
                    totals[i] += lastSeen[i] - e.getValue()[i];
                }
            }
        }
        baselines.keySet().retainAll(seen.keySet());
        lastCounters = seen;
        snapshotTaken = true;

        long[] sample = new long[COUNTERS + 1];
        System.arraycopy(totals, 0, sample, 0, COUNTERS);
        sample[COUNTERS] = t;
        samples.addLast(sample);
        while (samples.size() > 2 && samples.peekFirst()[COUNTERS] < t - RATE_WINDOW_MS) {
            samples.removeFirst();
        }
        long[] first = samples.peekFirst();
        double seconds = Math.max(1, t - first[COUNTERS]) / 1000.0;
        double[] rates = new double[COUNTERS];
        for (int i = 0; i < COUNTERS; i++) {
            rates[i] = (totals[i] - first[i]) / seconds;
        }
        double stallAvgMs = samples.size() < 2 ? 0
                : (totals[STALL_NANOS] - first[STALL_NANOS]) / 1e6 / (samples.size() - 1);
        StringBuilder perLevel = new StringBuilder();
        for (int i = 0; i < components.length; i++) {
            perLevel.append(i == 0 ? "" : ",").append(components[i]);
        }
        last = new Snapshot(totals, rates, stallAvgMs, openFiles, keys,
                lookups == 0 ? 0.0 : (double) hits / lookups,
                flushedBytes == 0 ? 0.0 : (double) (flushedBytes + mergedBytes) / flushedBytes,
                liveBytes < StoreStats.MIN_LIVE_BYTES_FOR_SPACE_AMPLIFICATION ? Double.NaN : tableBytes / liveBytes,
                policy, perLevel.toString());
    }

    private Map<LsmStore, long[]> lastCounters = new IdentityHashMap<>();
    private long lastSnapshotMs = Long.MIN_VALUE / 2;

    private static long[] counters(StoreStats st) {
        long[] c = new long[COUNTERS];
        c[WRITTEN] = st.walBytesWritten();
        c[READ] = st.io().bytesRead(IoPurpose.READ);
        c[FLUSHED] = st.flushBytesWritten();
        c[STALL_NANOS] = st.stallNanos();
        return c;
    }

    /** Removes the metrics this recorder added. Idempotent. */
    @Override
    public void close() {
        if (metrics == null) {
            return;
        }
        for (MetricName n : added) {
            metrics.removeStoreLevelMetric(n);
        }
        added.clear();
    }
}
