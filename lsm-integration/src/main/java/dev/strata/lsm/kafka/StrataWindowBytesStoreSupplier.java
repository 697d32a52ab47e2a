package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

import java.util.Objects;

/**
 * Supplies a new {@link StrataWindowStore} (or {@link StrataTimestampedWindowStore}, either
 * possibly time-ordered) per task; made by {@link StrataStores}. The headers variant is
 * {@link StrataWindowHeadersBytesStoreSupplier}. Immutable.
 */
public class StrataWindowBytesStoreSupplier implements WindowBytesStoreSupplier {
    private final String name;
    private final StoreConfig config;
    private final long retentionPeriod;
    private final long windowSize;
    private final boolean retainDuplicates;
    private final long segmentInterval;
    private final boolean timestamped;
    private final boolean timeOrdered;

    StrataWindowBytesStoreSupplier(String name, StoreConfig config, long retentionPeriod, long windowSize,
                                   boolean retainDuplicates, long segmentInterval, boolean timestamped,
                                   boolean timeOrdered) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.config = Objects.requireNonNull(config, "config cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.segmentInterval = segmentInterval;
        this.timestamped = timestamped;
        this.timeOrdered = timeOrdered;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public WindowStore<Bytes, byte[]> get() {
        return timestamped
                ? new StrataTimestampedWindowStore(name, config, retentionPeriod, windowSize, retainDuplicates,
                        segmentInterval, timeOrdered)
                : new StrataWindowStore(name, config, retentionPeriod, windowSize, retainDuplicates, segmentInterval,
                        timeOrdered);
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
    public long windowSize() {
        return windowSize;
    }

    @Override
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** The configuration of every segment's Strata store. */
    public StoreConfig config() {
        return config;
    }

    /** Whether the stores it supplies are {@link StrataTimestampedWindowStore}s. */
    public boolean timestamped() {
        return timestamped;
    }

    /** Whether the stores it supplies keep a time index (see {@link StrataWindowStore}, "Time-ordered"). */
    public boolean timeOrdered() {
        return timeOrdered;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + ", retention=" + retentionPeriod + "ms, size=" + windowSize
                + "ms, segment=" + segmentInterval + "ms" + (retainDuplicates ? ", duplicates" : "")
                + (timestamped ? ", timestamped" : "") + (timeOrdered ? ", time-ordered" : "") + "]";
    }
}
