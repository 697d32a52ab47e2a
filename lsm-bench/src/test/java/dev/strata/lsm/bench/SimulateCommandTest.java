package dev.strata.lsm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pinned {@code simulate} command line and its JSON, CSV and plot outputs. */
class SimulateCommandTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    @Test
    void jsonHasThePinnedFields() throws Exception {
        int rc = BenchCli.run("simulate", "--policy", "minlatency", "--param", "k=6", "--flushes", "20000",
                "--flush-length", "uniform", "--semantics", "model", "--checkpoints", "1000,3000,5000", "--json");
        assertEquals(0, rc, streams.err());
        JsonNode j = new ObjectMapper().readTree(streams.out());
        assertEquals("minlatency", j.get("policy").asText());
        assertEquals(6, j.get("params").get("k").asInt());
        assertEquals(20000, j.get("flushes").asLong());
        assertEquals("model", j.get("semantics").asText());
        assertTrue(j.get("writeAmplification").asDouble() > 1);
        assertTrue(j.get("avgComponentCount").asDouble() > 1);
        assertEquals(6, j.get("maxComponentCount").asInt());
        JsonNode cps = j.get("checkpoints");
        assertEquals(3, cps.size());
        assertEquals(1000, cps.get(0).get("flushes").asLong());
        assertTrue(cps.get(0).has("writeAmplification") && cps.get(0).has("avgComponentCount"));
        assertTrue(cps.get(2).get("writeAmplification").asDouble() >= cps.get(0).get("writeAmplification").asDouble());
    }

    @Test
    void tableCsvAndPlot() throws Exception {
        Path csv = dir.resolve("wa.csv");
        Path png = dir.resolve("wa.png");
        int rc = BenchCli.run("simulate", "--policy", "binomial", "--param", "k=4", "--flushes", "3000",
                "--flush-length", "random:1:10", "--semantics", "flush-then-merge", "--checkpoints", "1000",
                "--csv", csv.toString(), "--plot", png.toString());
        assertEquals(0, rc, streams.err());
        String table = streams.out();
        assertTrue(table.contains("write amplification") && table.contains("1000"), table);
        List<String> lines = Files.readAllLines(csv);
        assertEquals("flushes,writeAmplification,componentCount,avgComponentCount", lines.get(0));
        assertTrue(lines.size() > 100);
        byte[] image = Files.readAllBytes(png);
        assertTrue(image.length > 1000 && image[1] == 'P' && image[2] == 'N' && image[3] == 'G', "a PNG file");
    }

    @Test
    void flushLengthsFromAFile() throws Exception {
        Path lengths = dir.resolve("lengths.txt");
        Files.writeString(lengths, "# lengths\n4\n4\n8\n");
        int rc = BenchCli.run("simulate", "--policy", "constant", "--param", "k=2", "--flushes", "6",
                "--flush-length", "file:" + lengths, "--json");
        assertEquals(0, rc, streams.err());
        JsonNode j = new ObjectMapper().readTree(streams.out());
        assertEquals("file:" + lengths, j.get("flushLength").asText());
    }

    @Test
    void badInputIsAUsageErrorNamingTheProblem() {
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomal", "--flushes", "10"));
        assertTrue(streams.err().contains("unknown merge policy 'binomal'") && streams.err().contains("binomial"));
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--param", "q=1", "--flushes", "10"));
        assertTrue(streams.err().contains("unknown parameter 'q'"));
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--param", "k=0", "--flushes", "10"));
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--flush-length", "gaussian"));
        assertTrue(streams.err().contains("Invalid value for option '--flush-length'")
                && streams.err().contains("bad flush length spec 'gaussian'"), streams.err());
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--flush-length", "random:9:2"));
        assertTrue(streams.err().contains("'random:9:2'") && streams.err().contains("got A = 9 and B = 2"),
                streams.err());
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--flush-length", "random:1:ten"));
        assertTrue(streams.err().contains("B 'ten' is not an integer"), streams.err());
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--semantics", "paper"));
        assertTrue(streams.err().contains("Invalid value for option '--semantics'")
                && streams.err().contains("bad semantics 'paper'"), streams.err());
        assertEquals(2, BenchCli.run("simulate", "--policy", "binomial", "--flushes", "10", "--checkpoints", "20"));
    }
}
