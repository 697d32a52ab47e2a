package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * The timestamped variant of {@link StrataKeyValueStore}: each value is Kafka's timestamped
 * format (8-byte big-endian record timestamp, then the value). Strata stores the bytes as
 * given; implementing {@link TimestampedBytesStore} tells Kafka Streams' timestamped store
 * builders to pass them through instead of wrapping the store in a converting adapter.
 */
public class StrataTimestampedKeyValueStore extends StrataKeyValueStore implements TimestampedBytesStore {

    /**
     * @param name the store name
     * @param config the configuration each Strata store of this name is opened with
     */
    public StrataTimestampedKeyValueStore(String name, StoreConfig config) {
        super(name, config);
    }
}
