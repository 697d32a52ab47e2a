package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;

import static java.time.Duration.ofMillis;

/**
 * Kafka's session store contract ({@code AbstractSessionBytesStoreTest}) against
 * {@link StrataStores#persistentTimeOrderedSessionStore}, answering
 * {@code RocksDBTimeOrderedSessionStoreWithIndex} as its type, as Kafka runs it against its
 * time-ordered session store (with the key index, the one the DSL uses): the cases whose
 * expectations differ by type expect {@code findSessions(earliestEnd, latestEnd)} to work, in
 * time order. {@code shouldRestore} is replaced as in {@link StrataSessionStoreContractTest}.
 */
public class StrataTimeOrderedSessionStoreContractTest extends StrataSessionStoreContractTest {
    @Override
    <K, V> SessionStore<K, V> buildSessionStore(long retentionPeriod, Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.sessionStoreBuilder(
                StrataStores.persistentTimeOrderedSessionStore("rocksDB session store", ofMillis(retentionPeriod),
                        false, StrataStores.SEGMENT_CONFIG),
                keySerde, valueSerde).build();
    }

    @Override
    StoreType storeType() {
        return StoreType.RocksDBTimeOrderedSessionStoreWithIndex;
    }
}
