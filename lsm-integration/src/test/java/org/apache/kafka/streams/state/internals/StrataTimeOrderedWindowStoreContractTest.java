package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

import static java.time.Duration.ofMillis;

/**
 * Kafka's window store contract ({@code AbstractWindowBytesStoreTest}, every case) against
 * {@link StrataStores#persistentTimeOrderedWindowStore} under a plain window store builder
 * (no cache), as Kafka runs it against its time-ordered window store: {@code all()} and
 * {@code fetchAll} then read the time index.
 */
public class StrataTimeOrderedWindowStoreContractTest extends AbstractWindowBytesStoreTest {
    @Override
    <K, V> WindowStore<K, V> buildWindowStore(long retentionPeriod, long windowSize, boolean retainDuplicates,
                                              Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.windowStoreBuilder(
                StrataStores.persistentTimeOrderedWindowStore("rocksDB window store", ofMillis(retentionPeriod),
                        ofMillis(windowSize), retainDuplicates, false, StrataStores.SEGMENT_CONFIG),
                keySerde, valueSerde).build();
    }
}
