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
            // The sampler measures the directory, then appends a timeline sample. The first sample
            // appended after the write may come from a measurement begun before it; the second
            // comes from a measurement begun after it, which saw the file.
            int before = monitor.timeline().samples().size();
            awaitSamples(monitor, before + 2);
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

    /** Waits (up to 30 s) until the monitor's timeline holds {@code n} samples. */
    private static void awaitSamples(Monitor monitor, int n) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (monitor.timeline().samples().size() < n) {
            assertTrue(System.nanoTime() < deadline, "the monitor took fewer than " + n + " samples in 30 s");
            Thread.sleep(10);
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
