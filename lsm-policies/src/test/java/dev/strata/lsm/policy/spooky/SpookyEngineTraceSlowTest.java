package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.testkit.SlowTest;
import dev.strata.lsm.testkit.TestScale;

/**
 * {@link SpookyEngineTraceTest} at T = 5 with {@code TestScale.scaled(350_000)} entries (1,050,000
 * at the slow lane's multiplier 3: ~2,100 flushes of 64 KiB, L = 4 and up), in the slow lane only.
 * The fast lane checks the same rules at T = 3 on fewer entries.
 */
@SlowTest
class SpookyEngineTraceSlowTest extends SpookyEngineTraceTest {
    @Override
    int sizeRatio() {
        return 5;
    }

    @Override
    long entries() {
        return TestScale.scaled(350_000);
    }
}
