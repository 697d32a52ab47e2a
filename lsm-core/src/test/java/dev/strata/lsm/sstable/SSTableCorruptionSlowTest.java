package dev.strata.lsm.sstable;

import dev.strata.lsm.testkit.SlowTest;

/**
 * {@link SSTableCorruptionTest} in the slow lane: the small table's sweep flips every byte of the
 * table (the fast lane flips each page's edges and every 16th byte between).
 */
@SlowTest
class SSTableCorruptionSlowTest extends SSTableCorruptionTest {
}
