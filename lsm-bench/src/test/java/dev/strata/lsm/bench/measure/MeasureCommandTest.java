package dev.strata.lsm.bench.measure;

import dev.strata.lsm.bench.BenchCli;
import dev.strata.lsm.bench.StandardStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The measurements run end to end on tiny sizes (their figures are printed, not checked). */
class MeasureCommandTest {
    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    @TempDir
    Path tmp;

    @Test
    void storeMeasurementPutsGetsAndCleansUp() {
        Path dir = tmp.resolve("store");
        assertEquals(0, BenchCli.run("measure", "store", "--keys", "3000", "--gets", "500", "--rounds", "2",
                "--memtable", "65536", "--dir", dir.toString()), streams.err());
        String out = streams.out();
        assertTrue(out.contains("puts: 3000 in") && out.contains("gets round 2:"), out);
        assertFalse(Files.exists(dir), "scratch store deleted");
    }

    @Test
    void sstableMeasurementBuildsAndLooksUp() {
        assertEquals(0, BenchCli.run("measure", "sstable", "--entries", "5000", "--rounds", "1", "--lookups", "500",
                "--dir", tmp.toString()), streams.err());
        String out = streams.out();
        assertTrue(out.contains("build median:") && out.contains("point lookups median:"), out);
        assertFalse(Files.exists(tmp.resolve("bench.sst")));
    }

    @Test
    void sstableMeasurementMergesInputTables() throws Exception {
        assertEquals(0, BenchCli.run("measure", "sstable", "--entries", "6000", "--rounds", "2", "--lookups", "10",
                "--merge-inputs", "3", "--dir", tmp.toString()), streams.err());
        String out = streams.out();
        assertTrue(out.contains("merge: 3 input tables of 6000 entries") && out.contains("warm-up 1:")
                && out.contains("round 2:") && out.contains("merge median:"), out);
        try (var files = Files.list(tmp)) {
            assertEquals(0, files.count(), "inputs and output deleted");
        }
        assertEquals(1, BenchCli.run("measure", "sstable", "--merge-inputs", "1", "--dir", tmp.toString()));
        assertTrue(streams.err().contains("--merge-inputs 0 or >= 2"), streams.err());
    }

    @Test
    void missingMeasurementIsAUsageError() {
        assertEquals(2, BenchCli.run("measure"));
        assertTrue(streams.err().contains("store") && streams.err().contains("sstable"), streams.err());
    }

    @Test
    void badSizesAreRejected() {
        assertEquals(1, BenchCli.run("measure", "store", "--keys", "0", "--dir", tmp.resolve("x").toString()));
        assertTrue(streams.err().contains("--keys must be >= 1"), streams.err());
    }
}
