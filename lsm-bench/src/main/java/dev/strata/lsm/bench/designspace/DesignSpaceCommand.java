package dev.strata.lsm.bench.designspace;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.designspace.DesignSpacePresets;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code design-space}: the base experiment of the compaction design-space paper (seed 003,
 * FAMILIES.md §4.3) on the engine, one preset after another in fresh directories, and one
 * Markdown table per phase (DS3–DS6's figures).
 */
@Command(name = "design-space", mixinStandardHelpOptions = true,
        description = "Run the design-space paper's base experiment (inserts, deletes, an update mix, lookups) "
                + "for each design-space preset and print one table per phase.")
public final class DesignSpaceCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--presets", split = ",", description = "presets to run (default: the paper's ten); any "
            + "registered policy may be named, e.g. size-tiered, and runs with its defaults (--param applies to "
            + "design-space presets only); NAME:P=V+P=V gives one run its own parameters, e.g. spooky:x-offset=0")
    List<String> presets = new ArrayList<>(DesignSpacePresets.presetNames());

    @Option(names = "--records", defaultValue = "10000000", description = "unique inserts (default ${DEFAULT-VALUE})")
    long records;

    @Option(names = "--entry-bytes", defaultValue = "128", description = "bytes per entry, key included "
            + "(default ${DEFAULT-VALUE})")
    int entryBytes;

    @Option(names = "--key-size", defaultValue = "8", description = "bytes per key, at least 8 (default ${DEFAULT-VALUE}; "
            + "the paper's 4-byte keys do not hold 10M distinct sortable ids with this driver's key format)")
    int keySize;

    @Option(names = "--memtable", defaultValue = "8388608", description = "memtable bytes (default ${DEFAULT-VALUE})")
    long memtableBytes;

    @Option(names = "--delete-share", defaultValue = "0.1", description = "share of the keys deleted after the "
            + "inserts (default ${DEFAULT-VALUE})")
    double deleteShare;

    @Option(names = "--updates-per-insert", defaultValue = "8", description = "the update mix: updates of existing "
            + "keys per new key (default ${DEFAULT-VALUE})")
    int updatesPerInsert;

    @Option(names = "--update-keys", defaultValue = "uniform", description = "keys the update mix updates: uniform, "
            + "or zipf-hot (Zipf 0.99 over a hot set of 10%% of the keys, contiguous in key order, moving to another "
            + "place every fifth of the phase; needs --delete-share 0) (default ${DEFAULT-VALUE})")
    String updateKeys;

    @Option(names = "--update-ops", description = "operations of the update mix (default: --records)")
    Long updateOps;

    @Option(names = "--lookups", defaultValue = "1000000", description = "point lookups at the end (default ${DEFAULT-VALUE})")
    long lookups;

    @Option(names = "--range-queries", defaultValue = "1000", description = "range queries at the end "
            + "(default ${DEFAULT-VALUE})")
    int rangeQueries;

    @Option(names = "--range-length", defaultValue = "100", description = "entries a range query reads "
            + "(default ${DEFAULT-VALUE})")
    int rangeLength;

    @Option(names = "--param", description = "policy parameter NAME=VALUE for every preset (repeatable; default "
            + "size-ratio=10)", mapFallbackValue = "")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--sample-millis", defaultValue = "1000", description = "space sampling period "
            + "(default ${DEFAULT-VALUE})")
    long sampleMillis;

    @Option(names = "--merge-threads", description = "merge threads of every run's store, 1 to 64 (default: the "
            + "policy's own preference, e.g. 2 for spooky, else 1)")
    Integer mergeThreads;

    @Option(names = "--seed", defaultValue = "1", description = "seed (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--dir", description = "parent of the stores' directories (default: a temporary directory)")
    Path dir;

    @Option(names = "--markdown", description = "also write the tables to FILE")
    Path markdown;

    @Option(names = "--json", description = "write every figure as JSON to FILE")
    Path json;

    @Option(names = "--replot", description = "draw the --plot charts from FILE, written by an earlier run's --json, "
            + "and run nothing")
    Path replot;

    @Option(names = "--plot", description = "write PNG charts into DIR: data movement per preset, space over time")
    Path plot;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (replot != null) {
            if (plot == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--replot needs --plot DIR");
            }
            JsonNode saved = new ObjectMapper().readTree(replot.toFile()).path("results");
            plots(new ObjectMapper().convertValue(saved, new TypeReference<List<DesignSpaceRun.Result>>() { }), plot);
            out.printf("wrote the charts of %s into %s%n", replot, plot);
            out.flush();
            return 0;
        }
        if (records < 1 || entryBytes < keySize || deleteShare < 0 || deleteShare > 1 || updatesPerInsert < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "need --records >= 1, --entry-bytes >= --key-size, --delete-share in [0, 1], --updates-per-insert >= 0");
        }
        if (mergeThreads != null && (mergeThreads < 1 || mergeThreads > 64)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--merge-threads must be from 1 to 64, got "
                    + mergeThreads);
        }
        params.putIfAbsent("size-ratio", "10"); // the paper's T
        if (!updateKeys.equals("uniform") && !updateKeys.equals("zipf-hot")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--update-keys must be uniform or zipf-hot, got '"
                    + updateKeys + "'");
        }
        if (updateKeys.equals("zipf-hot") && deleteShare != 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--update-keys zipf-hot needs --delete-share 0 "
                    + "(its hot set may hold deleted keys otherwise)");
        }
        List<PresetSpec> runs = new ArrayList<>();
        for (String p : presets) {
            PresetSpec run;
            try {
                run = PresetSpec.parse(p);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            if (!MergePolicies.names().contains(run.policy())) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown preset '" + run.policy()
                        + "'; available: " + DesignSpacePresets.allPresetNames() + " and the other registered policies "
                        + MergePolicies.names());
            }
            try {
                MergePolicies.create(run.policy(), run.paramsWith(params)); // bad parameters fail here, before any run
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "preset '" + run.label() + "': "
                        + e.getMessage());
            }
            runs.add(run);
        }
        DesignSpaceRun.Settings settings = new DesignSpaceRun.Settings(records, keySize, entryBytes, memtableBytes,
                deleteShare, updatesPerInsert, updateKeys.equals("zipf-hot"), updateOps == null ? records : updateOps,
                lookups, rangeQueries,
                rangeLength, sampleMillis, seed, params, mergeThreads);
        Path parent = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("strata-design-space");
        List<DesignSpaceRun.Result> results = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            PresetSpec run = runs.get(i);
            Path storeDir = parent.resolve(run.params().isEmpty() ? "design-space-" + run.policy()
                    : "design-space-" + run.policy() + "-" + i);
            deleteTree(storeDir);
            System.err.printf(Locale.ROOT, "design-space: %s ...%n", run.label());
            results.add(new DesignSpaceRun(run.label(), run.policy(), run.paramsWith(params), settings, storeDir).run());
            deleteTree(storeDir);
        }
        String tables = tables(results);
        out.print(tables);
        out.flush();
        if (markdown != null) {
            Files.writeString(markdown, tables);
        }
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(),
                    Map.of("settings", settings, "results", results));
        }
        if (plot != null) {
            plots(results, plot);
        }
        return 0;
    }

    private String tables(List<DesignSpaceRun.Result> results) {
        StringBuilder b = new StringBuilder();
        int phases = results.get(0).phases().size();
        for (int p = 0; p < phases; p++) {
            DesignSpaceRun.Phase first = results.get(0).phases().get(p);
            b.append(String.format(Locale.ROOT, "%n### %s (%,d operations)%n%n", first.name(), first.ops()));
            b.append("| preset | compactions | moves | data movement | WA | WA_compact | peak SA | peak SA (dir) | mean SA "
                    + "| compaction mean / P50 / P99 ms | write P99 / max µs | ops/s | tombstones left "
                    + "| components per level |\n");
            b.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (DesignSpaceRun.Result r : results) {
                DesignSpaceRun.Phase ph = r.phases().get(p);
                b.append(String.format(Locale.ROOT,
                        "| %s | %d | %d | %.2f | %s | %.2f | %.2f | %.2f | %.2f | %.0f / %.0f / %.0f | %.0f / %.0f | %,.0f "
                                + "| %,d | %s |%n",
                        r.preset(), ph.compactions(), ph.moves(), ph.dataMovement(),
                        Double.isNaN(ph.writeAmplification()) ? "n/a (no flush)"
                                : String.format(Locale.ROOT, "%.2f", ph.writeAmplification()),
                        ph.compactionWriteAmplification(), ph.peakSpaceAmplification(),
                        ph.peakDirectorySpaceAmplification(), ph.meanSpaceAmplification(), ph.compactionMeanMillis(),
                        ph.compactionP50Millis(), ph.compactionP99Millis(), ph.writeP99Micros(), ph.writeMaxMicros(),
                        ph.opsPerSecond(), ph.tombstonesLeft(), java.util.Arrays.toString(ph.componentsPerLevel())));
            }
        }
        b.append(String.format(Locale.ROOT, "%n### bytes written by kind, per byte ingested%n%n"
                + "Table bytes each kind of write produced in the phase (flushes, and merges as their policy "
                + "labels them; `merge` = unlabelled) over the phase's user bytes; the kinds sum to WA_compact "
                + "plus flush.%n%n| preset | merge threads | phase | by kind |%n|---|---|---|---|%n"));
        for (DesignSpaceRun.Result r : results) {
            for (DesignSpaceRun.Phase ph : r.phases()) {
                double ingested = (double) ph.ops() * entryBytes;
                StringBuilder kinds = new StringBuilder();
                if (ph.bytesWrittenByKind() != null) {
                    ph.bytesWrittenByKind().forEach((k, v) -> kinds.append(kinds.length() == 0 ? "" : ", ")
                            .append(String.format(Locale.ROOT, "%s %.2f", k, v / ingested)));
                }
                b.append(String.format(Locale.ROOT, "| %s | %d | %s | %s |%n", r.preset(), r.mergeThreads(), ph.name(),
                        kinds.length() == 0 ? "n/a" : kinds));
            }
        }
        b.append(String.format(Locale.ROOT, "%n### reads at the end%n%n| preset | point lookups/s | hits | range queries/s |%n"
                + "|---|---|---|---|%n"));
        for (DesignSpaceRun.Result r : results) {
            b.append(String.format(Locale.ROOT, "| %s | %,.0f | %,d | %,.0f |%n", r.preset(), r.pointLookupsPerSecond(),
                    r.pointLookupHits(), r.rangeQueriesPerSecond()));
        }
        return b.toString();
    }

    private static void plots(List<DesignSpaceRun.Result> results, Path into) throws IOException {
        Files.createDirectories(into);
        CategoryChart movement = new CategoryChartBuilder().width(1000).height(600)
                .title("Data movement per strategy ((merge bytes read + written) / bytes ingested)")
                .xAxisTitle("preset").yAxisTitle("data movement").build();
        int phases = results.get(0).phases().size();
        for (int p = 0; p < phases; p++) {
            int phase = p;
            // A phase with no ingest (merges finishing after the previous one) has no finite data movement.
            movement.addSeries(results.get(0).phases().get(p).name(), results.stream().map(r -> r.preset()).toList(),
                    results.stream().map(r -> r.phases().get(phase).dataMovement())
                            .map(d -> (Number) (Double.isFinite(d) ? d : 0.0)).toList());
        }
        BitmapEncoder.saveBitmap(movement, into.resolve("data-movement.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        XYChart space = new XYChartBuilder().width(1000).height(600).title("Physical size over time")
                .xAxisTitle("seconds since the store opened").yAxisTitle("MB in the store's directory").build();
        space.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        for (DesignSpaceRun.Result r : results) {
            // A directory is never empty while its store is open: a zero is a failed listing that
            // runs before this fix recorded, not a size.
            List<double[]> pts = r.spaceOverTime().stream().filter(a -> a[2] > 0 || a[0] < 1).toList();
            if (pts.isEmpty()) {
                continue;
            }
            XYSeries series = space.addSeries(r.preset(), pts.stream().mapToDouble(a -> a[0]).toArray(),
                    pts.stream().mapToDouble(a -> a[2]).toArray());
            series.setMarker(SeriesMarkers.NONE);
        }
        BitmapEncoder.saveBitmap(space, into.resolve("space-over-time.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** One run: a registered policy, and the parameters given with its name ({@code NAME:P=V+P=V}). */
    record PresetSpec(String label, String policy, Map<String, String> params) {
        static PresetSpec parse(String text) {
            String t = text.trim();
            int colon = t.indexOf(':');
            if (colon < 0) {
                return new PresetSpec(t, t, Map.of());
            }
            Map<String, String> params;
            try {
                params = dev.strata.lsm.policy.PolicyParameters.parseAssignments(t.substring(colon + 1), '+');
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("preset '" + t + "': " + e.getMessage()
                        + " (NAME:P=V+P=V, e.g. spooky:x-offset=0)", e);
            }
            return new PresetSpec(t, t.substring(0, colon).trim(), Collections.unmodifiableMap(params));
        }

        /**
         * The parameters this run's policy gets: the experiment's ({@code --param}, design-space
         * presets only; another policy runs with its defaults) overridden by the run's own.
         */
        Map<String, String> paramsWith(Map<String, String> experiment) {
            Map<String, String> all = new LinkedHashMap<>(DesignSpacePresets.allPresetNames().contains(policy)
                    ? experiment : Map.of());
            all.putAll(params);
            return all;
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
