package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

import java.util.Objects;

/** Supplies a new {@link StrataSessionStore} per task; made by {@link StrataStores}. Immutable. */
public final class StrataSessionBytesStoreSupplier implements SessionBytesStoreSupplier {
    private final String name;
    private final StoreConfig config;
    private final long retentionPeriod;
    private final long segmentInterval;

    StrataSessionBytesStoreSupplier(String name, StoreConfig config, long retentionPeriod, long segmentInterval) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.config = Objects.requireNonNull(config, "config cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new StrataSessionStore(name, config, retentionPeriod, segmentInterval);
    }

    @Override
    public String metricsScope() {
        return StrataKeyValueBytesStoreSupplier.METRICS_SCOPE;
    }

    @Override
    public long segmentIntervalMs() {
        return segmentInterval;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** The configuration of every segment's Strata store. */
    public StoreConfig config() {
        return config;
    }

    @Override
    public String toString() {
        return "StrataSessionBytesStoreSupplier[" + name + ", retention=" + retentionPeriod + "ms, segment="
                + segmentInterval + "ms]";
    }
}
