package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * The headers variant (KIP-1271) of {@link StrataTimestampedWindowStore}: values are Kafka's
 * headers format (the record headers, the timestamp, then the value), stored as given.
 * Implementing {@link HeadersBytesStore} tells Kafka Streams' headers window store builder to
 * pass them through rather than wrap the store in a converting adapter, and its restore to
 * hand it changelog records already converted to that format. Like Kafka's
 * {@code RocksDBTimestampedWindowStoreWithHeaders} it is also a {@code TimestampedBytesStore}.
 * Threading and lifetime: as {@link StrataWindowStore}.
 */
public class StrataTimestampedWindowStoreWithHeaders extends StrataTimestampedWindowStore implements HeadersBytesStore {
    /** See {@link StrataWindowStore#StrataWindowStore(String, StoreConfig, long, long, boolean, long, boolean)}. */
    public StrataTimestampedWindowStoreWithHeaders(String name, StoreConfig config, long retentionPeriod,
                                                   long windowSize, boolean retainDuplicates, long segmentInterval,
                                                   boolean timeOrdered) {
        super(name, config, retentionPeriod, windowSize, retainDuplicates, segmentInterval, timeOrdered);
    }
}
