package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link StrataVersionedStoreTest} comparing everything every 20 operations (the fast lane: every
 * 60), in the slow lane only.
 */
@SlowTest
class StrataVersionedStoreSlowTest extends StrataVersionedStoreTest {
}
