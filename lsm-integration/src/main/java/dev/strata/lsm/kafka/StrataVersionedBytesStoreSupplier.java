package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.internals.VersionedKeyValueToBytesStoreAdapter;

import java.util.Objects;

/**
 * Supplies a new {@link StrataVersionedStore} per task, in Kafka's bytes-store adapter
 * ({@code VersionedKeyValueToBytesStoreAdapter}, as Kafka's RocksDB supplier does, so that
 * {@code Stores.versionedKeyValueStoreBuilder} and the DSL take it); made by
 * {@link StrataStores}. Immutable.
 */
public final class StrataVersionedBytesStoreSupplier implements VersionedBytesStoreSupplier {
    private final String name;
    private final StoreConfig config;
    private final long historyRetention;
    private final long segmentInterval;

    StrataVersionedBytesStoreSupplier(String name, StoreConfig config, long historyRetention, long segmentInterval) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.config = Objects.requireNonNull(config, "config cannot be null");
        this.historyRetention = historyRetention;
        this.segmentInterval = segmentInterval;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new VersionedKeyValueToBytesStoreAdapter(
                new StrataVersionedStore(name, config, historyRetention, segmentInterval));
    }

    @Override
    public String metricsScope() {
        return StrataKeyValueBytesStoreSupplier.METRICS_SCOPE;
    }

    @Override
    public long historyRetentionMs() {
        return historyRetention;
    }

    /** The time span of one history segment, in ms. */
    public long segmentIntervalMs() {
        return segmentInterval;
    }

    /** The configuration of the latest-value store and of every history segment. */
    public StoreConfig config() {
        return config;
    }

    @Override
    public String toString() {
        return "StrataVersionedBytesStoreSupplier[" + name + ", history=" + historyRetention + "ms, segment="
                + segmentInterval + "ms]";
    }
}
