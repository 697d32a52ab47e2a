package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

/**
 * Supplies a new {@link StrataSessionStoreWithHeaders} (possibly time-ordered) per task: the
 * headers format (KIP-1271), Strata's counterpart of {@code Stores.persistentSessionStoreWithHeaders};
 * made by {@link StrataStores}. Being a {@link HeadersBytesStoreSupplier} makes the DSL build a
 * headers store over it. Immutable.
 */
public final class StrataSessionHeadersBytesStoreSupplier extends StrataSessionBytesStoreSupplier
        implements HeadersBytesStoreSupplier {

    StrataSessionHeadersBytesStoreSupplier(String name, StoreConfig config, long retentionPeriod,
                                           long segmentInterval, boolean timeOrdered) {
        super(name, config, retentionPeriod, segmentInterval, timeOrdered);
    }

    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new StrataSessionStoreWithHeaders(name(), config(), retentionPeriod(), segmentIntervalMs(),
                timeOrdered());
    }
}
