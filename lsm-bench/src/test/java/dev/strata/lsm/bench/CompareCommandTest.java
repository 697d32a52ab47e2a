package dev.strata.lsm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.lsm.bench.workload.Comparison;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompareCommandTest {

    @Test
    void comparesAllThreeEnginesIntoThePinnedJson(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("out.json");
        Path plots = tmp.resolve("plots");
        Path data = tmp.resolve("data");
        int code = new CommandLine(new CompareCommand()).execute("--workload", "fillrandom,readrandom",
                "--records", "2000", "--engines", "strata,rocksdb,leveldb", "--dir", data.toString(),
                "--json", json.toString(), "--plot", plots.toString(), "--no-progress");
        assertEquals(0, code);

        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        for (String field : List.of("machine", "command", "date", "durability")) {
            assertTrue(doc.has(field), "missing " + field);
        }
        assertTrue(doc.get("command").asText().startsWith("lsm-bench compare"), doc.get("command").asText());
        JsonNode results = doc.get("results");
        assertEquals(6, results.size(), "three engines times two workloads");
        Set<String> seen = new HashSet<>();
        for (JsonNode r : results) {
            String what = r.get("engine").asText() + " " + r.get("workload").asText();
            seen.add(what);
            assertTrue(r.get("opsPerSec").asDouble() > 0, what);
            JsonNode lat = r.get("latencyMicros");
            for (String p : List.of("p50", "p90", "p99", "p999", "max")) {
                assertTrue(lat.get(p).asDouble() > 0, what + " " + p);
            }
            assertTrue(lat.get("p50").asDouble() <= lat.get("p99").asDouble()
                    && lat.get("p99").asDouble() <= lat.get("max").asDouble(), what + " percentiles in order");
            assertTrue(r.get("spaceAmplification").asDouble() > 0, what);
            assertTrue(r.get("engineCounters").size() > 0, what);
            assertEquals(1, r.get("rounds").asInt());
            assertEquals(2000, r.get("ops").asLong(), what);
            if (r.get("workload").asText().equals("fillrandom")) {
                // At least the log and the flushed table: every engine writes each byte twice or more.
                assertTrue(r.get("writeAmplification").asDouble() > 1, what + " WA");
            } else {
                assertEquals(0, r.get("misses").asLong(), what + ": every get finds its key");
                assertTrue(r.get("writeAmplification").isNull(), what + " wrote nothing, so WA is undefined");
            }
        }
        assertEquals(Set.of("strata fillrandom", "strata readrandom", "rocksdb fillrandom", "rocksdb readrandom",
                "leveldb fillrandom", "leveldb readrandom"), seen);
        assertTrue(doc.get("results").get(2).get("engine").asText().equals("rocksdb"), "engine-major order");
        assertTrue(Files.size(plots.resolve("throughput.png")) > 0);
        assertTrue(Files.size(plots.resolve("latency-cdf-2-readrandom.png")) > 0);
        try (var left = Files.list(data)) {
            assertFalse(left.findAny().isPresent(), "engine directories are deleted without --keep");
        }
    }

    @Test
    void repeatedRoundsReportTheMedianOfEachRound(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("r.json");
        int code = new CommandLine(new CompareCommand()).execute("--workload", "fillseq,c", "--records", "1000",
                "--engines", "leveldb,strata", "--repeat", "2", "--dir", tmp.resolve("d").toString(), "--json",
                json.toString(), "--no-progress");
        assertEquals(0, code);
        JsonNode results = new ObjectMapper().readTree(json.toFile()).get("results");
        assertEquals(4, results.size());
        for (JsonNode r : results) {
            assertEquals(2, r.get("rounds").asInt());
            JsonNode ops = r.get("perRound").get("opsPerSec");
            assertEquals(2, ops.size());
            // The median of two rounds is their mean.
            assertEquals((ops.get(0).asDouble() + ops.get(1).asDouble()) / 2, r.get("opsPerSec").asDouble(), 1e-6);
            assertEquals(0, r.get("misses").asLong());
        }
        JsonNode strataFill = results.get(2);
        assertEquals("strata", strataFill.get("engine").asText());
        assertEquals(strataFill.get("opsPerSec").asDouble() / results.get(0).get("opsPerSec").asDouble(),
                strataFill.get("opsPerSecRatioToFirst").asDouble(), 1e-9, "ratio to the first engine, leveldb");
    }

    @Test
    void roundsRotateTheEngineOrder() {
        List<String> engines = List.of("strata", "rocksdb", "leveldb");
        assertEquals(engines, Comparison.rotation(engines, 0));
        assertEquals(List.of("rocksdb", "leveldb", "strata"), Comparison.rotation(engines, 1));
        assertEquals(List.of("leveldb", "strata", "rocksdb"), Comparison.rotation(engines, 2));
        assertEquals(engines, Comparison.rotation(engines, 3));
    }
}
