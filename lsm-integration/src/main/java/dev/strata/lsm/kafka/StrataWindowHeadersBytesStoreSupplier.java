package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Supplies a new {@link StrataTimestampedWindowStoreWithHeaders} (possibly time-ordered) per
 * task: the headers format (KIP-1271), Strata's counterpart of
 * {@code Stores.persistentTimestampedWindowStoreWithHeaders}; made by {@link StrataStores}. Being
 * a {@link HeadersBytesStoreSupplier} makes the DSL build a headers store over it. Immutable.
 */
public final class StrataWindowHeadersBytesStoreSupplier extends StrataWindowBytesStoreSupplier
        implements HeadersBytesStoreSupplier {

    StrataWindowHeadersBytesStoreSupplier(String name, StoreConfig config, long retentionPeriod, long windowSize,
                                          boolean retainDuplicates, long segmentInterval, boolean timeOrdered) {
        super(name, config, retentionPeriod, windowSize, retainDuplicates, segmentInterval, true, timeOrdered);
    }

    @Override
    public WindowStore<Bytes, byte[]> get() {
        return new StrataTimestampedWindowStoreWithHeaders(name(), config(), retentionPeriod(), windowSize(),
                retainDuplicates(), segmentIntervalMs(), timeOrdered());
    }
}
