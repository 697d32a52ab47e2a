package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka's key-value store contract ({@code AbstractKeyValueStoreTest}) against
 * {@link StrataStores#persistentTimestampedKeyValueStore} under a plain key-value builder, as
 * Kafka runs it against its timestamped RocksDB store (the builder wraps it in Kafka's
 * plain-to-timestamped adapter).
 */
public class StrataTimestampedKeyValueStoreContractTest extends AbstractKeyValueStoreTest {
    @Override
    @SuppressWarnings("unchecked")
    protected <K, V> KeyValueStore<K, V> createKeyValueStore(StateStoreContext context) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(
                StrataStores.persistentTimestampedKeyValueStore("my-store"),
                (Serde<K>) context.keySerde(),
                (Serde<V>) context.valueSerde()).build();
        store.init(context, store);
        return store;
    }
}
