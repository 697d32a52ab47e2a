package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

import static java.time.Duration.ofMillis;

/**
 * Kafka's window store contract ({@code AbstractWindowBytesStoreTest} from the
 * {@code kafka-streams} 4.3.1 test jar, every case of it) run against
 * {@link StrataStores#persistentWindowStore}, built as Kafka's RocksDB window store test
 * builds its store (a window store builder: metered and change-logging layers over it).
 * Kafka's RocksDB-only cases ({@code AbstractRocksDBWindowStoreTest}, whose store is chosen
 * by a closed enum) are ported to {@code dev.strata.lsm.kafka.StrataWindowStoreTest}.
 */
public class StrataWindowStoreContractTest extends AbstractWindowBytesStoreTest {
    @Override
    <K, V> WindowStore<K, V> buildWindowStore(long retentionPeriod, long windowSize, boolean retainDuplicates,
                                              Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.windowStoreBuilder(
                StrataStores.persistentWindowStore("rocksDB window store", ofMillis(retentionPeriod),
                        ofMillis(windowSize), retainDuplicates),
                keySerde, valueSerde).build();
    }
}
