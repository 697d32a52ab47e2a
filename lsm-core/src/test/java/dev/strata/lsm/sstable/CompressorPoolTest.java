package dev.strata.lsm.sstable;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decision {@code parallelCompression="auto"} takes over one window of CPU times. */
class CompressorPoolTest {
    private static final long MS = 1_000_000L;

    @Test
    void aLoneBuildOnTwoCoresLeavesOneIdle() {
        // The building thread used one of two cores for 20 ms: a core is idle.
        assertTrue(CompressorPool.spareCore(2, 20 * MS, 0, 20 * MS));
        // And with three quarters of a core idle, still.
        assertTrue(CompressorPool.spareCore(2, 25 * MS, 0, 20 * MS));
    }

    @Test
    void writersAndMergesBusyOnBothCoresLeaveNone() {
        assertFalse(CompressorPool.spareCore(2, 40 * MS, 0, 20 * MS));
        assertFalse(CompressorPool.spareCore(2, 26 * MS, 0, 20 * MS), "only 0.7 of a core idle");
    }

    @Test
    void theCompressorsOwnWorkIsNotCountedAsLoad() {
        // A lone build handing pages to the pool: 1 core building + 0.8 compressing is 1.8 of 2
        // cores, but without the pool's share the build leaves a core: it must go on handing over.
        assertTrue(CompressorPool.spareCore(2, 36 * MS, 16 * MS, 20 * MS));
        // Beside busy writers the same pool share does not make room.
        assertFalse(CompressorPool.spareCore(2, 40 * MS, 4 * MS, 20 * MS));
    }

    @Test
    void oneCoreOrNoTimeNeverOffloads() {
        assertFalse(CompressorPool.spareCore(1, 0, 0, 20 * MS), "a single core has no second one");
        assertFalse(CompressorPool.spareCore(8, 0, 0, 0));
        assertTrue(CompressorPool.spareCore(8, 140 * MS, 0, 20 * MS), "7 of 8 cores busy leaves one");
    }
}
