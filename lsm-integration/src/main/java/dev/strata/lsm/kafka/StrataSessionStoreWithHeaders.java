package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * The headers variant (KIP-1271) of {@link StrataSessionStore}: each aggregate is Kafka's
 * headers format (the record headers, then the aggregate), stored as given. Implementing
 * {@link HeadersBytesStore} tells Kafka Streams' headers session store builder to pass the
 * bytes through rather than wrap the store in a converting adapter, and its restore to hand it
 * changelog records already converted to that format, as for Kafka's
 * {@code RocksDBSessionStoreWithHeaders}. Threading and lifetime: as {@link StrataSessionStore}.
 */
public class StrataSessionStoreWithHeaders extends StrataSessionStore implements HeadersBytesStore {
    /** See {@link StrataSessionStore#StrataSessionStore(String, StoreConfig, long, long, boolean)}. */
    public StrataSessionStoreWithHeaders(String name, StoreConfig config, long retentionPeriod, long segmentInterval,
                                         boolean timeOrdered) {
        super(name, config, retentionPeriod, segmentInterval, timeOrdered);
    }
}
