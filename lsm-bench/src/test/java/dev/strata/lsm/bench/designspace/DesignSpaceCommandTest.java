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
        int code = cli.execute("--presets", "full,tier", "--records", "60000", "--memtable", "262144", "--lookups",
                "2000", "--range-queries", "20", "--dir", tmp.resolve("stores").toString(), "--json", json.toString(),
                "--plot", tmp.resolve("plots").toString(), "--param", "tombstone-ttl=1m");
        assertEquals(0, code, out.toString());
        String tables = out.toString();
        for (String heading : new String[] {"### inserts (60,000", "### deletes (6,000", "### updates (60,000",
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
}
