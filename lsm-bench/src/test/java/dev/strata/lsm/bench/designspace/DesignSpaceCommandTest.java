package dev.strata.lsm.bench.designspace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DesignSpaceCommandTest {

    @Test
    void runsEachPresetThroughThePhasesAndReportsTheirFigures(@TempDir Path tmp) throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new DesignSpaceCommand());
        cli.setOut(new PrintWriter(out));
        Path json = tmp.resolve("r.json");
        // 15,000 records into 64 KiB memtables: the flushes and merges of 60,000 into 256 KiB.
        int code = cli.execute("--presets", "full,tier", "--records", "15000", "--memtable", "65536", "--lookups",
                "2000", "--range-queries", "20", "--dir", tmp.resolve("stores").toString(), "--json", json.toString(),
                "--plot", tmp.resolve("plots").toString(), "--param", "tombstone-ttl=1m");
        assertEquals(0, code, out.toString());
        String tables = out.toString();
        for (String heading : new String[] {"### inserts (15,000", "### deletes (1,500", "### updates (15,000",
                "### reads at the end"}) {
            assertTrue(tables.contains(heading), heading + " in\n" + tables);
        }
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals("10", root.path("settings").path("params").path("size-ratio").asText(), "T defaults to 10");
        assertEquals("1m", root.path("settings").path("params").path("tombstone-ttl").asText());
        JsonNode full = root.path("results").get(0);
        JsonNode tier = root.path("results").get(1);
        assertEquals("full", full.path("preset").asText());
        // Both wrote and merged on inserts; Full (leveling, whole levels) moved more data than Tier.
        double fullMove = full.path("phases").get(0).path("dataMovement").asDouble();
        double tierMove = tier.path("phases").get(0).path("dataMovement").asDouble();
        assertTrue(fullMove > tierMove && tierMove > 0, fullMove + " vs " + tierMove);
        assertEquals(full.path("pointLookupHits").asLong(), tier.path("pointLookupHits").asLong(),
                "the same keys are live whatever the policy");
        assertTrue(Files.exists(tmp.resolve("plots/data-movement.png")) && Files.exists(tmp.resolve("plots/space-over-time.png")));
        assertFalse(Files.exists(tmp.resolve("stores/design-space-full")), "each store is removed after its run");
    }

    @Test
    void anUnknownPresetIsRejectedBeforeAnyRun(@TempDir Path tmp) {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new DesignSpaceCommand());
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("--presets", "lo3", "--dir", tmp.resolve("d").toString());
        assertEquals(2, code);
        assertTrue(err.toString().contains("unknown preset 'lo3'"), err.toString());
        assertFalse(Files.exists(tmp.resolve("d")));
    }

    @Test
    void aPresetMayCarryItsOwnParameters(@TempDir Path tmp) throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new DesignSpaceCommand());
        cli.setOut(new PrintWriter(out));
        Path json = tmp.resolve("r.json");
        int code = cli.execute("--presets", "spooky:x-offset=0+size-ratio=4,one-leveling:size-ratio=5", "--records",
                "40000", "--memtable", "262144", "--delete-share", "0", "--lookups", "100", "--range-queries", "5",
                "--dir", tmp.resolve("stores").toString(), "--json", json.toString());
        assertEquals(0, code, out.toString());
        JsonNode results = new ObjectMapper().readTree(json.toFile()).path("results");
        JsonNode full = results.get(0);
        assertEquals("spooky:x-offset=0+size-ratio=4", full.path("preset").asText());
        assertEquals("spooky", full.path("policy").asText());
        assertEquals("0", full.path("params").path("x-offset").asText());
        assertEquals("4", full.path("params").path("size-ratio").asText());
        assertEquals("5", results.get(1).path("params").path("size-ratio").asText(),
                "a preset's own value overrides the experiment's T = 10");
        JsonNode inserts = full.path("phases").get(0);
        assertTrue(inserts.path("peakDirectoryMegabytes").asDouble() > 40000 * 128 / 1e6,
                "the directory held at least the data: " + inserts);
        assertEquals(inserts.path("mergeBytesWritten").asDouble() / (40000 * 128.0),
                inserts.path("compactionWriteAmplification").asDouble(), 1e-9);
        assertEquals(List.of("inserts", "updates"), List.of(full.path("phases").get(0).path("name").asText(),
                full.path("phases").get(1).path("name").asText()), "no deletes phase without deletes");
        assertEquals(2, full.path("mergeThreads").asInt(), "spooky runs on the two threads it asks for");
        assertEquals(1, results.get(1).path("mergeThreads").asInt(), "one-leveling keeps the bench's one thread");
        JsonNode kinds = inserts.path("bytesWrittenByKind");
        assertTrue(kinds.path("full-preemptive").asLong() > 0 && kinds.path("flush").asLong() > 0, kinds.toString());
        assertEquals(inserts.path("mergeBytesWritten").asLong(), kinds.path("full-preemptive").asLong()
                + kinds.path("intra-l0").asLong(), "Full Merge's merges are full preemptive (and intra-L0): " + kinds);
        assertTrue(out.toString().contains("| spooky:x-offset=0+size-ratio=4 | 2 | inserts | "), out.toString());

        // The charts can be drawn again from the saved JSON.
        CommandLine again = new CommandLine(new DesignSpaceCommand());
        again.setOut(new PrintWriter(new StringWriter()));
        assertEquals(0, again.execute("--replot", json.toString(), "--plot", tmp.resolve("replot").toString()));
        assertTrue(Files.exists(tmp.resolve("replot/data-movement.png"))
                && Files.exists(tmp.resolve("replot/space-over-time.png")));
    }

    @Test
    void badMergeThreadsAreRejectedBeforeAnyRun(@TempDir Path tmp) {
        for (String bad : new String[] {"0", "65"}) {
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new DesignSpaceCommand());
            cli.setErr(new PrintWriter(err));
            int code = cli.execute("--presets", "spooky", "--merge-threads", bad, "--dir", tmp.resolve("d").toString());
            assertEquals(2, code);
            assertTrue(err.toString().contains("--merge-threads must be from 1 to 64, got " + bad), err.toString());
            assertFalse(Files.exists(tmp.resolve("d")));
        }
    }

    @Test
    void aPresetsBadParameterIsRejectedBeforeAnyRun(@TempDir Path tmp) {
        for (String bad : new String[] {"spooky:x-offset", "spooky:x-offset=-3", "spooky:no-such=1"}) {
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new DesignSpaceCommand());
            cli.setErr(new PrintWriter(err));
            int code = cli.execute("--presets", "full," + bad, "--dir", tmp.resolve("d").toString());
            assertEquals(2, code, bad);
            assertTrue(err.toString().contains(bad.contains("=") ? "preset '" + bad + "'" : "bad parameter 'x-offset'"),
                    err.toString());
            assertFalse(Files.exists(tmp.resolve("d")));
        }
    }
}
