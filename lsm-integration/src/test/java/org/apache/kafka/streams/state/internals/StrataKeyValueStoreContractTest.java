package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka's key-value store contract ({@code AbstractKeyValueStoreTest} from the
 * {@code kafka-streams} 4.3.1 test jar, every case of it) run against
 * {@link StrataStores#persistentKeyValueStore}, built as Kafka's own RocksDB store test
 * builds its store. In Kafka's package because the base class's helpers are package-private.
 */
public class StrataKeyValueStoreContractTest extends AbstractKeyValueStoreTest {
    @Override
    @SuppressWarnings("unchecked")
    protected <K, V> KeyValueStore<K, V> createKeyValueStore(StateStoreContext context) {
        KeyValueStore<K, V> store = Stores.keyValueStoreBuilder(
                StrataStores.persistentKeyValueStore("my-store"),
                (Serde<K>) context.keySerde(),
                (Serde<V>) context.valueSerde()).build();
        store.init(context, store);
        return store;
    }
}
