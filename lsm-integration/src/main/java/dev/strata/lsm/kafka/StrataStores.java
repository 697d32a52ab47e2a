package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

import java.time.Duration;
import java.util.Objects;

/**
 * Kafka Streams store suppliers backed by Strata, the counterpart of
 * {@link org.apache.kafka.streams.state.Stores}'s RocksDB suppliers:
 *
 * <pre>{@code
 * builder.table("input", Materialized.as(StrataStores.persistentKeyValueStore("counts")));
 * // or, for every key-value store of a topology:
 * props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
 * }</pre>
 *
 * Each task's key-value store is a Strata store in {@code <state.dir>/<task>/strata/<name>},
 * opened with the given configuration (by default {@link #DEFAULT_CONFIG}). Window and session
 * stores keep one Strata store per time segment in {@code <state.dir>/<task>/strata/<name>/<segment start>}
 * (by default opened with {@link #SEGMENT_CONFIG}), so that an expired segment is dropped by
 * deleting its directory.
 *
 * <p>The window and session suppliers take the arguments of, and validate them as,
 * {@link org.apache.kafka.streams.state.Stores}'s: the segment interval is
 * {@code max(retentionPeriod / 2, 60 s)}, Kafka's rule.
 */
public final class StrataStores {
    /**
     * The configuration stores get when none is given: Strata's defaults with a 16 MiB
     * memtable and a 32 MiB block cache (a Kafka Streams instance opens one store per task,
     * so per-store memory is kept near that of Kafka's RocksDB store), and one background
     * thread. It names no merge policy: a new store runs the default for new stores
     * ({@code one-leveling}, lsm-policies being on the class path), an existing one the policy
     * its manifest records.
     */
    public static final StoreConfig DEFAULT_CONFIG = StoreConfig.builder()
            .memtableBytes(16L << 20)
            .blockCacheBytes(32L << 20)
            .backgroundThreads(1)
            .build();

    /**
     * The configuration each time segment of a window or session store opens with when none is
     * given: a store has about {@code retention / segmentInterval + 1} (usually 3) segments
     * open per task, so each gets a 4 MiB memtable and an 8 MiB block cache, and one
     * background thread.
     */
    public static final StoreConfig SEGMENT_CONFIG = StoreConfig.builder()
            .memtableBytes(4L << 20)
            .blockCacheBytes(8L << 20)
            .backgroundThreads(1)
            .build();

    /** The smallest segment interval, Kafka's: 60 s. */
    static final long MIN_SEGMENT_INTERVAL_MS = 60_000L;

    private StrataStores() {
    }

    /** A key-value store supplier with {@link #DEFAULT_CONFIG}. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name) {
        return persistentKeyValueStore(name, DEFAULT_CONFIG);
    }

    /** A key-value store supplier whose stores open Strata with {@code config}. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name, StoreConfig config) {
        return new StrataKeyValueBytesStoreSupplier(name, config, false);
    }

    /**
     * A timestamped key-value store supplier (its stores are {@code TimestampedBytesStore}s)
     * with {@link #DEFAULT_CONFIG}, for {@code Stores.timestampedKeyValueStoreBuilder}.
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
        return persistentTimestampedKeyValueStore(name, DEFAULT_CONFIG);
    }

    /** A timestamped key-value store supplier whose stores open Strata with {@code config}. */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name, StoreConfig config) {
        return new StrataKeyValueBytesStoreSupplier(name, config, true);
    }

    /**
     * A window store supplier with {@link #SEGMENT_CONFIG}, as
     * {@link org.apache.kafka.streams.state.Stores#persistentWindowStore(String, Duration, Duration, boolean)}.
     *
     * @param retentionPeriod how long windows are kept (at least {@code windowSize})
     * @param windowSize the size of the windows (not negative)
     * @param retainDuplicates whether every put is kept (for joins); a null value is then ignored
     * @throws IllegalArgumentException when a duration is negative or has more than a long's
     *         milliseconds, or the window size exceeds the retention period
     */
    public static WindowBytesStoreSupplier persistentWindowStore(String name, Duration retentionPeriod,
                                                                 Duration windowSize, boolean retainDuplicates) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, SEGMENT_CONFIG, Format.PLAIN, Order.KEY);
    }

    /** {@link #persistentWindowStore(String, Duration, Duration, boolean)} with segments opened with {@code config}. */
    public static WindowBytesStoreSupplier persistentWindowStore(String name, Duration retentionPeriod,
                                                                 Duration windowSize, boolean retainDuplicates,
                                                                 StoreConfig config) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, config, Format.PLAIN, Order.KEY);
    }

    /**
     * A timestamped window store supplier (its stores are {@code TimestampedBytesStore}s) with
     * {@link #SEGMENT_CONFIG}, as {@code Stores.persistentTimestampedWindowStore}; the arguments
     * are those of {@link #persistentWindowStore(String, Duration, Duration, boolean)}.
     */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStore(String name, Duration retentionPeriod,
                                                                            Duration windowSize,
                                                                            boolean retainDuplicates) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, SEGMENT_CONFIG, Format.TIMESTAMPED, Order.KEY);
    }

    /** {@link #persistentTimestampedWindowStore(String, Duration, Duration, boolean)} with segments opened with {@code config}. */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStore(String name, Duration retentionPeriod,
                                                                            Duration windowSize,
                                                                            boolean retainDuplicates,
                                                                            StoreConfig config) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, config, Format.TIMESTAMPED, Order.KEY);
    }

    /**
     * A session store supplier with {@link #SEGMENT_CONFIG}, as
     * {@link org.apache.kafka.streams.state.Stores#persistentSessionStore(String, Duration)}.
     *
     * @param retentionPeriod how long sessions are kept after they end
     * @throws IllegalArgumentException when the retention period is negative or has more than
     *         a long's milliseconds
     */
    public static SessionBytesStoreSupplier persistentSessionStore(String name, Duration retentionPeriod) {
        return persistentSessionStore(name, retentionPeriod, SEGMENT_CONFIG);
    }

    /** {@link #persistentSessionStore(String, Duration)} with segments opened with {@code config}. */
    public static SessionBytesStoreSupplier persistentSessionStore(String name, Duration retentionPeriod,
                                                                   StoreConfig config) {
        return sessionStore(name, retentionPeriod, config, Format.PLAIN, Order.KEY);
    }

    /**
     * A timestamped key-value store supplier in the headers format (KIP-1271) with
     * {@link #DEFAULT_CONFIG}, as {@code Stores.persistentTimestampedKeyValueStoreWithHeaders}:
     * its stores are {@code HeadersBytesStore}s and it is a {@code HeadersBytesStoreSupplier},
     * for {@code Stores.timestampedKeyValueStoreWithHeadersBuilder} and the DSL's headers format
     * ({@code dsl.store.format=headers}).
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStoreWithHeaders(String name) {
        return persistentTimestampedKeyValueStoreWithHeaders(name, DEFAULT_CONFIG);
    }

    /** {@link #persistentTimestampedKeyValueStoreWithHeaders(String)} whose stores open Strata with {@code config}. */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStoreWithHeaders(String name,
                                                                                        StoreConfig config) {
        return new StrataKeyValueHeadersBytesStoreSupplier(name, config);
    }

    /**
     * A timestamped window store supplier in the headers format (KIP-1271) with
     * {@link #SEGMENT_CONFIG}, as {@code Stores.persistentTimestampedWindowStoreWithHeaders}; the
     * arguments and their checks are those of {@link #persistentWindowStore(String, Duration, Duration, boolean)}.
     */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStoreWithHeaders(String name,
                                                                                   Duration retentionPeriod,
                                                                                   Duration windowSize,
                                                                                   boolean retainDuplicates) {
        return persistentTimestampedWindowStoreWithHeaders(name, retentionPeriod, windowSize, retainDuplicates,
                SEGMENT_CONFIG);
    }

    /** {@link #persistentTimestampedWindowStoreWithHeaders(String, Duration, Duration, boolean)} with segments opened with {@code config}. */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStoreWithHeaders(String name,
                                                                                   Duration retentionPeriod,
                                                                                   Duration windowSize,
                                                                                   boolean retainDuplicates,
                                                                                   StoreConfig config) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, config, Format.HEADERS, Order.KEY);
    }

    /**
     * A session store supplier in the headers format (KIP-1271) with {@link #SEGMENT_CONFIG}, as
     * {@code Stores.persistentSessionStoreWithHeaders}; the arguments and their checks are those
     * of {@link #persistentSessionStore(String, Duration)}.
     */
    public static SessionBytesStoreSupplier persistentSessionStoreWithHeaders(String name, Duration retentionPeriod) {
        return persistentSessionStoreWithHeaders(name, retentionPeriod, SEGMENT_CONFIG);
    }

    /** {@link #persistentSessionStoreWithHeaders(String, Duration)} with segments opened with {@code config}. */
    public static SessionBytesStoreSupplier persistentSessionStoreWithHeaders(String name, Duration retentionPeriod,
                                                                              StoreConfig config) {
        return sessionStore(name, retentionPeriod, config, Format.HEADERS, Order.KEY);
    }

    /**
     * A time-ordered timestamped window store supplier, Strata's counterpart of Kafka's
     * {@code RocksDbIndexedTimeOrderedWindowBytesStoreSupplier}, which Kafka Streams uses for
     * windowed aggregations that emit on window close ({@code EmitStrategy.onWindowClose()};
     * {@link StrataDslStoreSuppliers} returns it for them): its stores also keep their records
     * in time order, so that the windows closed since the last emission are one scan (see
     * {@link StrataWindowStore}, "Time-ordered"). Arguments and checks as
     * {@link #persistentWindowStore(String, Duration, Duration, boolean)}; {@code withHeaders}
     * gives the headers format (KIP-1271) and a {@code HeadersBytesStoreSupplier}.
     */
    public static WindowBytesStoreSupplier persistentTimeOrderedWindowStore(String name, Duration retentionPeriod,
                                                                            Duration windowSize,
                                                                            boolean retainDuplicates,
                                                                            boolean withHeaders, StoreConfig config) {
        return windowStore(name, retentionPeriod, windowSize, retainDuplicates, config, withHeaders ? Format.HEADERS : Format.TIMESTAMPED, Order.TIME);
    }

    /**
     * A time-ordered session store supplier, Strata's counterpart of Kafka's
     * {@code RocksDbTimeOrderedSessionBytesStoreSupplier}, which Kafka Streams uses for session
     * aggregations that emit on window close ({@link StrataDslStoreSuppliers} returns it for
     * them): its stores answer {@code findSessions(earliestSessionEndTime, latestSessionEndTime)}
     * over every key from a time index (see {@link StrataSessionStore}, "Time-ordered").
     * Arguments and checks as {@link #persistentSessionStore(String, Duration)};
     * {@code withHeaders} gives the headers format (KIP-1271) and a {@code HeadersBytesStoreSupplier}.
     */
    public static SessionBytesStoreSupplier persistentTimeOrderedSessionStore(String name, Duration retentionPeriod,
                                                                              boolean withHeaders,
                                                                              StoreConfig config) {
        return sessionStore(name, retentionPeriod, config, withHeaders ? Format.HEADERS : Format.PLAIN, Order.TIME);
    }

    /** The value format of a store's records, as Kafka's {@code DslStoreFormat} names them. */
    private enum Format { PLAIN, TIMESTAMPED, HEADERS }

    /** The order a window or session store's range reads across keys come in. */
    private enum Order {
        /** By key, then time (Kafka's default window and session stores). */
        KEY,
        /** By time across keys, through a time index (Kafka's time-ordered stores, emit on window close). */
        TIME
    }

    private static SessionBytesStoreSupplier sessionStore(String name, Duration retentionPeriod, StoreConfig config,
                                                          Format format, Order order) {
        boolean headers = format == Format.HEADERS;
        boolean timeOrdered = order == Order.TIME;
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(config, "config cannot be null");
        long retentionMs = millis(retentionPeriod, "retentionPeriod");
        return headers
                ? new StrataSessionHeadersBytesStoreSupplier(name, config, retentionMs, segmentInterval(retentionMs),
                        timeOrdered)
                : new StrataSessionBytesStoreSupplier(name, config, retentionMs, segmentInterval(retentionMs),
                        timeOrdered);
    }

    /**
     * A versioned key-value store supplier (KIP-889) with {@link #SEGMENT_CONFIG}, as
     * {@link org.apache.kafka.streams.state.Stores#persistentVersionedKeyValueStore(String, Duration)}:
     * older versions stay queryable for {@code historyRetention} of stream time (also the grace
     * period for late writes), in history segments of Kafka's default interval for that
     * retention (see {@link #versionedSegmentInterval}).
     *
     * @throws IllegalArgumentException when the retention is negative or has more than a long's milliseconds
     */
    public static VersionedBytesStoreSupplier persistentVersionedKeyValueStore(String name,
                                                                               Duration historyRetention) {
        long retentionMs = millis(historyRetention, "historyRetention");
        return persistentVersionedKeyValueStore(name, historyRetention, Duration.ofMillis(
                versionedSegmentInterval(retentionMs)), SEGMENT_CONFIG);
    }

    /**
     * {@link #persistentVersionedKeyValueStore(String, Duration)} with the given history
     * segment interval, as Kafka's overload of the same name, and Strata configuration.
     *
     * @throws IllegalArgumentException when a duration is negative, the interval is zero, or
     *         either has more than a long's milliseconds
     */
    public static VersionedBytesStoreSupplier persistentVersionedKeyValueStore(String name, Duration historyRetention,
                                                                               Duration segmentInterval,
                                                                               StoreConfig config) {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(config, "config cannot be null");
        long retentionMs = millis(historyRetention, "historyRetention");
        long intervalMs = millis(segmentInterval, "segmentInterval");
        if (intervalMs < 1) {
            throw new IllegalArgumentException("segmentInterval cannot be zero or negative");
        }
        return new StrataVersionedBytesStoreSupplier(name, config, retentionMs, intervalMs);
    }

    /**
     * Kafka's default history segment interval for a versioned store: a third of a retention up
     * to a minute (at least 2 s), a fifth up to 5 minutes (at least 20 s), a twelfth up to an
     * hour (at least a minute), a twenty-fourth beyond (at least 5 minutes).
     */
    static long versionedSegmentInterval(long historyRetentionMs) {
        if (historyRetentionMs <= 60_000L) {
            return Math.max(historyRetentionMs / 3, 2_000L);
        } else if (historyRetentionMs <= 300_000L) {
            return Math.max(historyRetentionMs / 5, 20_000L);
        } else if (historyRetentionMs <= 3_600_000L) {
            return Math.max(historyRetentionMs / 12, 60_000L);
        }
        return Math.max(historyRetentionMs / 24, 300_000L);
    }

    private static WindowBytesStoreSupplier windowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                        boolean retainDuplicates, StoreConfig config,
                                                        Format format, Order order) {
        boolean timeOrdered = order == Order.TIME;
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(config, "config cannot be null");
        long retentionMs = millis(retentionPeriod, "retentionPeriod");
        long windowMs = millis(windowSize, "windowSize");
        if (windowMs > retentionMs) {
            throw new IllegalArgumentException("The retention period of the window store " + name
                    + " must be no smaller than its window size. Got size=[" + windowMs + "], retention=["
                    + retentionMs + "]");
        }
        if (format == Format.HEADERS) {
            return new StrataWindowHeadersBytesStoreSupplier(name, config, retentionMs, windowMs, retainDuplicates,
                    segmentInterval(retentionMs), timeOrdered);
        }
        return new StrataWindowBytesStoreSupplier(name, config, retentionMs, windowMs, retainDuplicates,
                segmentInterval(retentionMs), format == Format.TIMESTAMPED, timeOrdered);
    }

    /** Kafka's default segment interval: half the retention period, at least 60 s. */
    static long segmentInterval(long retentionMs) {
        return Math.max(retentionMs / 2, MIN_SEGMENT_INTERVAL_MS);
    }

    private static long millis(Duration d, String what) {
        Objects.requireNonNull(d, what + " cannot be null");
        long ms;
        try {
            ms = d.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " " + d + " cannot be expressed as a long number of milliseconds",
                    e);
        }
        if (ms < 0) {
            throw new IllegalArgumentException(what + " cannot be negative, was " + d);
        }
        return ms;
    }
}
