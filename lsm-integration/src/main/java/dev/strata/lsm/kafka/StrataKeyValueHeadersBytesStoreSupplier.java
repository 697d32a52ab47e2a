package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies a new {@link StrataTimestampedKeyValueStoreWithHeaders} per task: the headers format
 * (KIP-1271), Strata's counterpart of {@code Stores.persistentTimestampedKeyValueStoreWithHeaders};
 * made by {@link StrataStores#persistentTimestampedKeyValueStoreWithHeaders}. Being a
 * {@link HeadersBytesStoreSupplier} makes the DSL build a headers store over it. Immutable.
 */
public final class StrataKeyValueHeadersBytesStoreSupplier extends StrataKeyValueBytesStoreSupplier
        implements HeadersBytesStoreSupplier {

    StrataKeyValueHeadersBytesStoreSupplier(String name, StoreConfig config) {
        super(name, config, false);
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new StrataTimestampedKeyValueStoreWithHeaders(name(), config());
    }
}
