package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * The timestamped variant of {@link StrataWindowStore}: values are Kafka's timestamped format
 * (8-byte record timestamp, then the value), stored as given; implementing
 * {@link TimestampedBytesStore} tells Kafka Streams' timestamped window store builder to pass
 * them through rather than wrap the store in a converting adapter.
 */
public class StrataTimestampedWindowStore extends StrataWindowStore implements TimestampedBytesStore {
    /** See {@link StrataWindowStore#StrataWindowStore}. */
    public StrataTimestampedWindowStore(String name, StoreConfig config, long retentionPeriod, long windowSize,
                                        boolean retainDuplicates, long segmentInterval) {
        super(name, config, retentionPeriod, windowSize, retainDuplicates, segmentInterval);
    }

    /** See {@link StrataWindowStore#StrataWindowStore(String, StoreConfig, long, long, boolean, long, boolean)}. */
    public StrataTimestampedWindowStore(String name, StoreConfig config, long retentionPeriod, long windowSize,
                                        boolean retainDuplicates, long segmentInterval, boolean timeOrdered) {
        super(name, config, retentionPeriod, windowSize, retainDuplicates, segmentInterval, timeOrdered);
    }
}
