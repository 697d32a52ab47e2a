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
    void checkpointMeasurementCheckpointsBacksUpRestoresAndChecks() {
        Path dir = tmp.resolve("cp");
        assertEquals(0, BenchCli.run("measure", "checkpoint", "--bytes", "3m", "--value-size", "500",
                "--check-keys", "500", "--config", config().toString(), "--dir", dir.toString()), streams.err());
        String out = streams.out();
        assertTrue(out.contains("checkpoint under writes:") && out.contains("bytes copied"), out);
        assertTrue(out.contains("checkpoint opened:") && out.contains(": ok"), out);
        assertTrue(out.contains("backup 1 (full): id 1") && out.contains("backup 2 (incremental): id 2"), out);
        assertTrue(out.contains("restored store:") && out.endsWith(": ok" + System.lineSeparator()), out);
        // Hard links work on the test's file system: the checkpoint copied no table byte.
        assertTrue(out.matches("(?s).*checkpoint under writes: [0-9.]+ s; \\d+ table files, [0-9,]+ bytes "
                + "hard-linked, 0 bytes copied.*"), out);
        long copied1 = bytesCopied(out, "backup 1 (full)");
        long copied2 = bytesCopied(out, "backup 2 (incremental)");
        assertTrue(copied1 > 3_000_000, "the first backup copies the whole store: " + copied1);
        assertTrue(copied2 < copied1, "the second copies only the changed files: " + copied2 + " < " + copied1);
        assertFalse(Files.exists(dir), "scratch deleted");
    }

    private Path config() {
        // A small memtable, so that 3 MB make several tables and the incremental backup shares some;
        // WAL mode sync, whose segments hold what was written: async's are mapped and preallocated
        // (tens of MB each), copied whole by both backups, so they, not the tables, decided the
        // comparison below (the second copied 85,279,328 bytes against the first's 85,173,456).
        Path xml = tmp.resolve("small.xml");
        try {
            Files.writeString(xml, "<store><memtable bytes=\"256KiB\"/><wal mode=\"sync\"/></store>");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return xml;
    }

    private static long bytesCopied(String out, String what) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(what)
                + ": id \\d+, [0-9.]+ s, \\d+ files, [0-9,]+ bytes, bytesCopied ([0-9,]+)").matcher(out);
        assertTrue(m.find(), out);
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    @Test
    void checkpointMeasurementRejectsABadSize() {
        assertEquals(1, BenchCli.run("measure", "checkpoint", "--bytes", "lots", "--dir", tmp.resolve("x").toString()));
        assertTrue(streams.err().contains("--bytes must be a positive size"), streams.err());
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
