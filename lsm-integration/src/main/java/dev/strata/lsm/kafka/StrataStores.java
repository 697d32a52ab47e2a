package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

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
 * Each task's store is a Strata store in {@code <state.dir>/<task>/strata/<name>}, opened
 * with the given configuration (by default {@link #DEFAULT_CONFIG}).
 */
public final class StrataStores {
    /**
     * The configuration stores get when none is given: Strata's defaults with a 16 MiB
     * memtable and a 32 MiB block cache (a Kafka Streams instance opens one store per task,
     * so per-store memory is kept near that of Kafka's RocksDB store), and one background
     * thread.
     */
    public static final StoreConfig DEFAULT_CONFIG = StoreConfig.builder()
            .memtableBytes(16L << 20)
            .blockCacheBytes(32L << 20)
            .backgroundThreads(1)
            .build();

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
}
