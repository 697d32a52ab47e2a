package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;

import static java.time.Duration.ofMillis;

/**
 * Kafka's session store contract ({@code AbstractSessionBytesStoreTest}) against
 * {@link StrataStores#persistentSessionStoreWithHeaders} (KIP-1271) under a plain session
 * store builder (which passes the bytes through: the values are opaque to the store). It
 * answers {@code RocksDBSessionStore} as its type, as {@link StrataSessionStoreContractTest}
 * does: the headers store behaves as the plain one (Kafka's {@code RocksDBSessionStoreWithHeaders}
 * extends its RocksDB session store likewise and, as it, does not answer
 * {@code findSessions(earliestEnd, latestEnd)}; the base class's
 * {@code RocksDBSessionStoreWithHeaders} type would expect that call to work).
 * {@code shouldRestore} is replaced as in {@link StrataSessionStoreContractTest}.
 */
public class StrataSessionStoreWithHeadersContractTest extends StrataSessionStoreContractTest {
    @Override
    <K, V> SessionStore<K, V> buildSessionStore(long retentionPeriod, Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.sessionStoreBuilder(
                StrataStores.persistentSessionStoreWithHeaders("rocksDB session store", ofMillis(retentionPeriod)),
                keySerde, valueSerde).build();
    }

    @Override
    StoreType storeType() {
        return StoreType.RocksDBSessionStore;
    }
}
