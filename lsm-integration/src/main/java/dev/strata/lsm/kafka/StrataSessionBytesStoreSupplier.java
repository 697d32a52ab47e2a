package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

import java.util.Objects;

/**
 * Supplies a new {@link StrataSessionStore} (possibly time-ordered) per task; made by
 * {@link StrataStores}. The headers variant is {@link StrataSessionHeadersBytesStoreSupplier}.
 * Immutable.
 */
public class StrataSessionBytesStoreSupplier implements SessionBytesStoreSupplier {
    private final String name;
    private final StoreConfig config;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final boolean timeOrdered;

    StrataSessionBytesStoreSupplier(String name, StoreConfig config, long retentionPeriod, long segmentInterval,
                                    boolean timeOrdered) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.config = Objects.requireNonNull(config, "config cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.timeOrdered = timeOrdered;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new StrataSessionStore(name, config, retentionPeriod, segmentInterval, timeOrdered);
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

    /** Whether the stores it supplies keep a time index (see {@link StrataSessionStore}, "Time-ordered"). */
    public boolean timeOrdered() {
        return timeOrdered;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + ", retention=" + retentionPeriod + "ms, segment="
                + segmentInterval + "ms" + (timeOrdered ? ", time-ordered" : "") + "]";
    }
}
