package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Objects;

/**
 * Supplies a new {@link StrataKeyValueStore} (or {@link StrataTimestampedKeyValueStore}) per
 * task; made by {@link StrataStores}. The headers variant is
 * {@link StrataKeyValueHeadersBytesStoreSupplier}. Immutable.
 */
public class StrataKeyValueBytesStoreSupplier implements KeyValueBytesStoreSupplier {
    /** The metrics scope of Strata stores. */
    public static final String METRICS_SCOPE = "strata";

    private final String name;
    private final StoreConfig config;
    private final boolean timestamped;

    StrataKeyValueBytesStoreSupplier(String name, StoreConfig config, boolean timestamped) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.config = Objects.requireNonNull(config, "config cannot be null");
        this.timestamped = timestamped;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return timestamped ? new StrataTimestampedKeyValueStore(name, config) : new StrataKeyValueStore(name, config);
    }

    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    /** The configuration every store it supplies opens Strata with. */
    public StoreConfig config() {
        return config;
    }

    /** Whether the stores it supplies are {@link StrataTimestampedKeyValueStore}s. */
    public boolean timestamped() {
        return timestamped;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + (timestamped ? ", timestamped" : "") + "]";
    }
}
