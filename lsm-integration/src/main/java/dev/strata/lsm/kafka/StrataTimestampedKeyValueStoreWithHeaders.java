package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * The headers variant (KIP-1271) of the Strata key-value store: each value is Kafka's headers
 * format (the record headers, the timestamp, then the value), stored as given. Implementing
 * {@link HeadersBytesStore} tells Kafka Streams' headers store builder
 * ({@code Stores.timestampedKeyValueStoreWithHeadersBuilder}) to pass the bytes through
 * instead of wrapping the store in a converting adapter, and its restore to hand it changelog
 * records already converted to that format, as for Kafka's
 * {@code RocksDBTimestampedStoreWithHeaders}. Threading and lifetime: as {@link StrataKeyValueStore}.
 */
public class StrataTimestampedKeyValueStoreWithHeaders extends StrataKeyValueStore implements HeadersBytesStore {
    /**
     * @param name the store name
     * @param config the configuration each Strata store of this name is opened with
     */
    public StrataTimestampedKeyValueStoreWithHeaders(String name, StoreConfig config) {
        super(name, config);
    }
}
