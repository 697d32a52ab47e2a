package dev.strata.lsm.bench.workload;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The human-readable report of a {@link Summary}: settings, one table row per engine and workload, counters. */
public final class ResultTable {
    private static final String ROW = "%-26s %-8s %12s %9s %9s %9s %9s %9s %10s %6s %6s %7s %7s %8s%n";

    private ResultTable() {
    }

    /** Prints {@code summary} of a run with {@code settings} to {@code out}. */
    public static void print(Summary summary, WorkloadSettings settings, PrintStream out) {
        String first = summary.engines().get(0);
        out.printf(Locale.ROOT, "%,d records of %d-byte keys and %d-byte values; %d thread(s); %s; seed %d; "
                        + "medians over %d round(s)%n", settings.records(), settings.keySize(), settings.valueSize(),
                settings.threads(), settings.openLoop()
                        ? String.format(Locale.ROOT, "open loop at %,.0f ops/s (latency from the scheduled start)",
                        settings.rate())
                        : "closed loop (latency from the actual start)", settings.seed(), summary.rounds());
        for (String engine : summary.engines()) {
            out.printf("  %-8s %s%n", engine, summary.descriptions().get(engine));
            out.printf("  %-8s durability: %s%n", "", summary.durability().get(engine));
        }
        Summary.Row any = summary.rows().get(0);
        out.printf("WA = bytes this process wrote (/proc/self/io %s) from the workload's start until the engine "
                + "settled / key+value bytes written; SA = %s of the data directory / live key+value bytes; peak SA = "
                + "the directory's largest size sampled once a second during the workload and settling / the "
                + "same live bytes%n",
                any.writeSource(), any.diskSource());
        if (settings.workloads().contains(WorkloadType.INGEST)) {
            out.printf(Locale.ROOT, "ingest = the records in key order written by the engine's own table writer into "
                    + "external files of %,d records beside the data directory, then one ingest call, on one thread, "
                    + "on an empty store; ops/s counts both; latency rows: write-file = one file, ingest = the call; "
                    + "a fill after ingest starts on an empty store too; Strata's ingest verification: %s%n",
                    settings.ingestFileRecords(), settings.ingestVerification());
            for (String engine : summary.engines()) {
                String how = summary.ingestMethods().get(engine);
                out.printf("  %-8s ingest: %s%n", engine, how == null ? "not supported" : how);
            }
        }
        out.println();
        out.printf(Locale.ROOT, ROW, "workload", "engine", "ops/s", "vs " + first, "p50 us", "p90 us", "p99 us",
                "p99.9 us", "max us", "WA", "SA", "peak SA", "misses", "settle s");
        int workloads = summary.rowsOf(first).size();
        for (int w = 0; w < workloads; w++) {
            for (String engine : summary.engines()) {
                Summary.Row r = summary.rowsOf(engine).get(w);
                String name = engine.equals(first) ? label(r) : "";
                if (!r.supported()) {
                    out.printf(Locale.ROOT, "%-26s %-8s not supported: %s%n", name, engine, r.notSupported());
                    continue;
                }
                Latency l = r.latency();
                out.printf(Locale.ROOT, ROW, name, engine, String.format(Locale.ROOT, "%,.0f", r.opsPerSec()),
                        Double.isNaN(r.ratioToFirst()) ? "-"
                                : String.format(Locale.ROOT, "%.2fx", r.ratioToFirst()), us(l.p50()), us(l.p90()), us(l.p99()),
                        us(l.p999()), us(l.max()), num(r.writeAmplification()), num(r.spaceAmplification()),
                        num(r.peakSpaceAmplification()), r.misses(), String.format(Locale.ROOT, "%.1f", r.settleSeconds()));
                if (r.byOperation().size() > 1) {
                    for (Map.Entry<Operation, Latency> e : r.byOperation().entrySet()) {
                        Latency o = e.getValue();
                        out.printf(Locale.ROOT, ROW, "", "  " + e.getKey().label(),
                                String.format(Locale.ROOT, "n=%,d", o.count()), "", us(o.p50()), us(o.p90()),
                                us(o.p99()), us(o.p999()), us(o.max()), "", "", "", "", "");
                    }
                }
            }
        }
        out.println();
        out.println("engine counters after each workload (settled); Strata's writeAmplification is the merge"
                + " policy's own, (flush + merge bytes) / flush bytes, without the WAL, so it is 1.0 when no merge"
                + " ran; the table's WA above counts every byte written, WAL included, per key+value byte:");
        for (Summary.Row r : summary.rows()) {
            if (!r.supported()) {
                continue;
            }
            out.printf("  %-8s %-26s %s%n", r.engine(), label(r), r.engineCounters().entrySet().stream()
                    .map(e -> e.getKey() + "=" + value(e.getValue())).collect(Collectors.joining(" ")));
        }
    }

    private static String label(Summary.Row r) {
        return r.distribution() == null ? r.workload() : r.workload() + " (" + r.distribution() + ")";
    }

    private static String us(double micros) {
        return micros >= 100 ? String.format(Locale.ROOT, "%,.0f", micros) : String.format(Locale.ROOT, "%.1f", micros);
    }

    private static String num(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String value(Object v) {
        if (v instanceof Double d) {
            return String.format(Locale.ROOT, "%.3f", d);
        }
        if (v instanceof int[] a) {
            return java.util.Arrays.toString(a).replace(" ", "");
        }
        if (v instanceof long[] a) {
            return java.util.Arrays.toString(a).replace(" ", "");
        }
        return String.valueOf(v);
    }
}
