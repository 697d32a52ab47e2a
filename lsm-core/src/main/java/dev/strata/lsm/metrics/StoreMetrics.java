package dev.strata.lsm.metrics;

import dev.strata.lsm.StoreStats;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoCounters;
import dev.strata.lsm.io.IoPurpose;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Publishes a store's counters to Micrometer: bytes read and written per IO purpose,
 * write and space amplification, components per level, flushes, merges, stall time,
 * memtable size, a write timer (count, total and max), flush and merge timers with
 * percentile histograms, a count of gets, and
 * the block cache's Caffeine statistics. All meters carry the tag {@code store=<directory name>}.
 * Gets are counted, not timed: reading the clock twice and updating a timer cost a few
 * percent of a point lookup's CPU time; callers that want get latency time their calls.
 * Bind it to the host's registry, or let the store keep its own {@link SimpleMeterRegistry}.
 */
public final class StoreMetrics implements MeterBinder, AutoCloseable {
    /** How many levels get a components gauge. */
    private static final int LEVEL_GAUGES = 8;

    private final Tags tags;
    private final IoCounters io;
    private final Supplier<StoreStats> stats;
    private final BlockCache cache;
    private final List<Meter> meters = new ArrayList<>();
    private final LongAdder gets = new LongAdder();
    private MeterRegistry registry;
    private Timer putTimer;
    private Timer flushTimer;
    private Timer mergeTimer;

    public StoreMetrics(String storeName, IoCounters io, Supplier<StoreStats> stats, BlockCache cache) {
        this.tags = Tags.of("store", storeName);
        this.io = io;
        this.stats = stats;
        this.cache = cache;
    }

    @Override
    public void bindTo(MeterRegistry r) {
        this.registry = r;
        for (IoPurpose p : IoPurpose.values()) {
            Tags t = tags.and("purpose", p.name().toLowerCase());
            meters.add(FunctionCounter.builder("strata.io.written", io, c -> c.snapshot().bytesWritten(p))
                    .baseUnit("bytes").tags(t).description("bytes written, by purpose").register(r));
            meters.add(FunctionCounter.builder("strata.io.read", io, c -> c.snapshot().bytesRead(p))
                    .baseUnit("bytes").tags(t).description("bytes read, by purpose").register(r));
        }
        meters.add(Gauge.builder("strata.write.amplification", stats, s -> s.get().writeAmplification())
                .tags(tags).description("(flush + merge bytes) / flush bytes").register(r));
        meters.add(Gauge.builder("strata.space.amplification", stats, s -> s.get().spaceAmplification())
                .tags(tags).description("table file bytes / estimated live data bytes; NaN for a store under 64 KiB")
                .register(r));
        meters.add(Gauge.builder("strata.compression.ratio", stats, s -> s.get().compressionRatio())
                .tags(tags).description("uncompressed / stored bytes of the live tables").register(r));
        meters.add(FunctionCounter.builder("strata.decompressions", cache, BlockCache::decompressions)
                .tags(tags).description("pages of compressed tables decompressed").register(r));
        meters.add(FunctionCounter.builder("strata.decompression.time", cache, c -> c.decompressionNanos() / 1e9)
                .baseUnit("seconds").tags(tags).description("time spent decompressing pages").register(r));
        for (int level = 0; level < LEVEL_GAUGES; level++) {
            int l = level;
            Tags lt = tags.and("level", String.valueOf(level));
            meters.add(Gauge.builder("strata.level.logical.bytes", stats, s -> {
                long[] b = s.get().logicalBytesByLevel();
                return l < b.length ? b[l] : 0;
            }).baseUnit("bytes").tags(lt).description("uncompressed page bytes of the level's tables").register(r));
            meters.add(Gauge.builder("strata.level.stored.bytes", stats, s -> {
                long[] b = s.get().storedBytesByLevel();
                return l < b.length ? b[l] : 0;
            }).baseUnit("bytes").tags(lt).description("stored bytes of the level's tables").register(r));
            meters.add(Gauge.builder("strata.components", stats, s -> {
                int[] counts = s.get().componentsPerLevel();
                return l < counts.length ? counts[l] : 0;
            }).tags(tags.and("level", String.valueOf(level))).description("components per level").register(r));
        }
        meters.add(FunctionCounter.builder("strata.flushes", stats, s -> s.get().flushCount())
                .tags(tags).register(r));
        meters.add(FunctionCounter.builder("strata.merges", stats, s -> s.get().mergeCount())
                .tags(tags).register(r));
        meters.add(FunctionCounter.builder("strata.prefix.bloom.skips", stats, s -> s.get().prefixBloomSkips())
                .tags(tags).description("tables prefix scans skipped by their prefix bloom").register(r));
        meters.add(FunctionCounter.builder("strata.stall", stats, s -> s.get().stallNanos() / 1e9)
                .baseUnit("seconds").tags(tags).description("time writers waited").register(r));
        meters.add(Gauge.builder("strata.memtable.bytes", stats, s -> s.get().memtableBytes())
                .baseUnit("bytes").tags(tags).register(r));
        meters.add(FunctionCounter.builder("strata.gets", gets, LongAdder::sum)
                .tags(tags).description("point lookups").register(r));
        // Count, total and max only: a percentile histogram update per write cost ~5% of a put.
        putTimer = Timer.builder("strata.write").tags(tags).register(r);
        meters.add(putTimer);
        flushTimer = timer(r, "strata.flush");
        mergeTimer = timer(r, "strata.merge");
        if (cache.caffeine() != null) {
            CaffeineCacheMetrics.monitor(r, cache.caffeine(), "strata.block.cache", tags);
        }
    }

    private Timer timer(MeterRegistry r, String name) {
        Timer t = Timer.builder(name).tags(tags).publishPercentileHistogram()
                .publishPercentiles(0.5, 0.99, 0.999).register(r);
        meters.add(t);
        return t;
    }

    /**
     * Registers the meters of one column family, tagged {@code store} and {@code family}
     * (names {@code strata.family.*}: components, table bytes, memtable bytes, flushes,
     * merges, stall time, policy errors), read from {@code familyStats}; returns them for
     * {@link #unbindFamily} when the family is dropped. The meters without a family tag are
     * the store's (its IO, its cache, its timers) and its default family's, as before families.
     */
    public List<Meter> bindFamily(String family, Supplier<StoreStats> familyStats) {
        List<Meter> added = new ArrayList<>();
        MeterRegistry r = registry;
        if (r == null) {
            return added;
        }
        Tags t = tags.and("family", family);
        added.add(Gauge.builder("strata.family.components", familyStats, s -> s.get().componentCount())
                .tags(t).description("components of the family").register(r));
        added.add(Gauge.builder("strata.family.table.bytes", familyStats, s -> s.get().liveComponentBytes())
                .baseUnit("bytes").tags(t).description("bytes of the family's live tables").register(r));
        added.add(Gauge.builder("strata.family.memtable.bytes", familyStats, s -> s.get().memtableBytes())
                .baseUnit("bytes").tags(t).register(r));
        added.add(FunctionCounter.builder("strata.family.flushes", familyStats, s -> s.get().flushCount())
                .tags(t).register(r));
        added.add(FunctionCounter.builder("strata.family.merges", familyStats, s -> s.get().mergeCount())
                .tags(t).register(r));
        added.add(FunctionCounter.builder("strata.family.stall", familyStats, s -> s.get().stallNanos() / 1e9)
                .baseUnit("seconds").tags(t).description("time writers waited on the family").register(r));
        added.add(FunctionCounter.builder("strata.family.policy.errors", familyStats, s -> s.get().policyErrors())
                .tags(t).register(r));
        synchronized (meters) {
            meters.addAll(added);
        }
        return added;
    }

    /** Removes meters {@link #bindFamily} registered. */
    public void unbindFamily(List<Meter> familyMeters) {
        if (registry != null) {
            for (Meter m : familyMeters) {
                registry.remove(m);
            }
        }
        synchronized (meters) {
            meters.removeAll(familyMeters);
        }
    }

    /** Counts a get. */
    public void recordGet() {
        gets.increment();
    }

    /** Counts {@code n} gets (a multi-get). */
    public void recordGets(int n) {
        gets.add(n);
    }

    /** Records a write (put, delete or batch) that took {@code nanos}. */
    public void recordWrite(long nanos) {
        putTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void recordFlush(long nanos) {
        flushTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void recordMerge(long nanos) {
        mergeTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The registry these meters are bound to. */
    public MeterRegistry registry() {
        return registry;
    }

    /** Removes this store's meters from the registry. */
    @Override
    public void close() {
        if (registry != null) {
            synchronized (meters) {
                for (Meter m : meters) {
                    registry.remove(m);
                }
            }
            registry.getMeters().stream()
                    .filter(m -> "strata.block.cache".equals(m.getId().getTag("cache"))
                            && tags.stream().allMatch(t -> t.getValue().equals(m.getId().getTag(t.getKey()))))
                    .toList().forEach(registry::remove);
        }
    }
}
