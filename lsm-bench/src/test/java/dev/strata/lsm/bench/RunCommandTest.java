package dev.strata.lsm.bench;

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

class RunCommandTest {

    private record Outcome(int code, String err) {
    }

    private static Outcome run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new RunCommand());
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Outcome(code, err.toString());
    }

    @Test
    void rejectsUnknownEngineBeforeTouchingTheDisk(@TempDir Path tmp) {
        Path dir = tmp.resolve("never");
        Outcome o = run("--engine", "mongodb", "--dir", dir.toString(), "--records", "10");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("unknown engine 'mongodb'") && o.err().contains("rocksdb"), o.err());
        assertFalse(Files.exists(dir), "a bad argument changes nothing");
    }

    @Test
    void rejectsUnknownWorkload() {
        Outcome o = run("--workload", "fillrandom,ycsb-z", "--records", "10");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("unknown workload 'ycsb-z'") && o.err().contains("readwhilewriting"), o.err());
    }

    @Test
    void rejectsUnknownDistribution() {
        Outcome o = run("--workload", "readrandom", "--distribution", "pareto", "--records", "10");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("unknown key distribution 'pareto'") && o.err().contains("zipfian"), o.err());
    }

    @Test
    void rejectsBadNumbers() {
        assertEquals(2, run("--records", "0").code());
        assertEquals(2, run("--rate", "-5", "--records", "10").code());
        assertEquals(2, run("--zipf-theta", "1.5", "--records", "10").code());
    }

    @Test
    void runsEveryYcsbWorkloadOnStrataWithoutMisses(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("run.json");
        Outcome o = run("--engine", "strata", "--workload", "load,a,b,c,d,e,f,readwhilewriting", "--records", "500",
                "--ops", "500", "--threads", "2", "--dir", tmp.resolve("data").toString(), "--json", json.toString(),
                "--no-progress");
        assertEquals(0, o.code(), o.err());
        var results = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.toFile()).get("results");
        assertEquals(8, results.size());
        for (var r : results) {
            assertEquals(0, r.get("misses").asLong(), r.get("workload").asText() + " misses");
            assertTrue(r.get("opsPerSec").asDouble() > 0);
        }
        assertTrue(results.get(5).get("latencyMicrosByOperation").has("scan"), "e scans");
        assertTrue(results.get(6).get("latencyMicrosByOperation").has("rmw"), "f reads, modifies and writes");
    }
}
