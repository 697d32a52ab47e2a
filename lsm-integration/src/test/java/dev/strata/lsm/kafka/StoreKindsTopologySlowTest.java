package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link StoreKindsTopologyTest} with 240 events per run (multiplier 3), and the cached run
 * compared with Kafka's cached RocksDB run (about 40 s more), in the slow lane only.
 */
@SlowTest
class StoreKindsTopologySlowTest extends StoreKindsTopologyTest {
    @Override
    boolean referenceCaching() {
        return true;
    }
}
