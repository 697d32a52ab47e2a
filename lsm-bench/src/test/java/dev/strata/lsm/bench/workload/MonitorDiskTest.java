package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The monitor samples the data directory once a second and keeps each phase's peak. */
class MonitorDiskTest {

    @Test
    void aFileThatCameAndWentDuringThePhaseCountsInItsPeak(@TempDir Path dir) throws Exception {
        byte[] data = new byte[8 << 20];
        new java.util.Random(1).nextBytes(data);
        try (Monitor monitor = new Monitor("test", dir, null, "none", null)) {
            monitor.begin("fill", 0, List.of());
            Path transientFile = dir.resolve("transient.sst");
            Files.write(transientFile, data);
            Thread.sleep(2_500); // at least two samples while the file exists
            Files.delete(transientFile);
            DiskUsage end = DiskUsage.of(dir);
            DiskUsage peak = monitor.phasePeakDisk(end);
            assertEquals(0, end.apparentBytes());
            assertTrue(peak.apparentBytes() >= data.length, "peak file lengths " + peak);
            if (end.allocatedBytes() >= 0) {
                assertTrue(peak.allocatedBytes() >= data.length, "peak allocated blocks " + peak);
            }
            monitor.begin("next", 0, List.of());
            assertEquals(0, monitor.phasePeakDisk(DiskUsage.of(dir)).apparentBytes(), "a new phase starts afresh");
        }
    }

    @Test
    void withoutADirectoryThePeakIsTheEndMeasurement(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("a"), new byte[4096]);
        try (Monitor monitor = new Monitor("test", null, "none", null)) {
            DiskUsage end = DiskUsage.of(dir);
            assertEquals(end, monitor.phasePeakDisk(end));
        }
    }
}
