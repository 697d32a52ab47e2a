package dev.strata.lsm.bench.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON report: {@code {"results": [...], "machine": {...}, "command": "...", "date": "...",
 * "durability": "..."}}, each result the medians over rounds of one engine and workload with
 * the pinned fields {@code engine, workload, opsPerSec, latencyMicros{p50,p90,p99,p999,max},
 * writeAmplification, spaceAmplification, engineCounters, rounds} and more beside them.
 */
public final class ResultJson {

    private ResultJson() {
    }

    /** The report as nested maps and lists, ready for Jackson. */
    public static Map<String, Object> document(Summary summary, WorkloadSettings settings, String command) {
        List<Map<String, Object>> results = new ArrayList<>();
        for (Summary.Row r : summary.rows()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("engine", r.engine());
            m.put("workload", r.workload());
            m.put("position", r.position());
            m.put("distribution", r.distribution());
            m.put("ops", r.ops());
            if (!r.supported()) {
                m.put("notSupported", r.notSupported());
                m.put("opsPerSec", null);
                m.put("opsPerSecRatioToFirst", null);
                m.put("rounds", r.rounds());
                results.add(m);
                continue;
            }
            m.put("opsPerSec", r.opsPerSec());
            m.put("opsPerSecRatioToFirst", Double.isNaN(r.ratioToFirst()) ? null : r.ratioToFirst());
            m.put("latencyMicros", latency(r.latency()));
            Map<String, Object> byOp = new LinkedHashMap<>();
            r.byOperation().forEach((op, l) -> byOp.put(op.label(), latency(l)));
            m.put("latencyMicrosByOperation", byOp);
            m.put("backgroundOps", r.backgroundOps());
            m.put("misses", r.misses());
            m.put("writeAmplification", r.writeAmplification());
            m.put("writeAmplificationSinceOpen", r.cumulativeWriteAmplification());
            m.put("writeAmplificationSource", "/proc/self/io " + r.writeSource());
            m.put("spaceAmplification", r.spaceAmplification());
            m.put("spaceAmplificationApparent", r.spaceAmplificationApparent());
            m.put("spaceAmplificationSource", r.diskSource());
            m.put("peakSpaceAmplification", r.peakSpaceAmplification());
            m.put("peakDiskAllocatedBytes", r.peakAllocatedBytes());
            m.put("peakDiskApparentBytes", r.peakApparentBytes());
            m.put("settleSeconds", r.settleSeconds());
            m.put("engineCounters", r.engineCounters());
            m.put("perRound", r.perRound());
            m.put("rounds", r.rounds());
            results.add(m);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("results", results);
        doc.put("machine", MachineInfo.describe());
        doc.put("command", command);
        doc.put("date", Instant.now().toString());
        StringBuilder durability = new StringBuilder();
        summary.durability().forEach((engine, d) -> durability.append(durability.length() == 0 ? "" : "; ")
                .append(engine).append(": ").append(d));
        doc.put("durability", durability.toString());
        doc.put("engines", summary.descriptions());
        if (!summary.ingestMethods().isEmpty()) {
            doc.put("ingestMethods", summary.ingestMethods());
        }
        doc.put("settings", settings(settings));
        return doc;
    }

    /** Writes the report to {@code file}. */
    public static void write(Summary summary, WorkloadSettings settings, String command, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(file.toFile(), document(summary, settings, command));
    }

    private static Map<String, Object> latency(Latency l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", l.p50());
        m.put("p90", l.p90());
        m.put("p99", l.p99());
        m.put("p999", l.p999());
        m.put("max", l.max());
        m.put("count", l.count());
        return m;
    }

    private static Map<String, Object> settings(WorkloadSettings s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workloads", s.workloads().stream().map(WorkloadType::label).toList());
        m.put("records", s.records());
        m.put("ops", s.ops());
        m.put("keySize", s.keySize());
        m.put("valueSize", s.valueSize());
        m.put("threads", s.threads());
        m.put("seed", s.seed());
        m.put("distribution", s.distribution() == null ? "per workload" : s.distribution().label());
        m.put("zipfTheta", s.zipfTheta());
        m.put("loop", s.openLoop() ? String.format(Locale.ROOT, "open at %.0f ops/s", s.rate()) : "closed");
        m.put("maxScanLength", s.maxScanLength());
        m.put("scanLength", s.scanLength());
        m.put("ingestFileRecords", s.ingestFileRecords());
        m.put("ingestVerification", s.ingestVerification());
        return m;
    }
}
