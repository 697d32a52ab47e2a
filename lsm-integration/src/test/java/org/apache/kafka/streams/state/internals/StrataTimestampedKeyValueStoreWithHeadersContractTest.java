package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka's key-value store contract ({@code AbstractKeyValueStoreTest}) against
 * {@link StrataStores#persistentTimestampedKeyValueStoreWithHeaders} (KIP-1271) under a plain
 * key-value builder, which stores the bytes it is given (the headers store's values are opaque
 * to it).
 */
public class StrataTimestampedKeyValueStoreWithHeadersContractTest extends AbstractKeyValueStoreTest {
    @Override
    @SuppressWarnings("unchecked")
    protected <K, V> KeyValueStore<K, V> createKeyValueStore(StateStoreContext context) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(
                StrataStores.persistentTimestampedKeyValueStoreWithHeaders("my-store"),
                (Serde<K>) context.keySerde(),
                (Serde<V>) context.valueSerde()).build();
        store.init(context, store);
        return store;
    }
}
