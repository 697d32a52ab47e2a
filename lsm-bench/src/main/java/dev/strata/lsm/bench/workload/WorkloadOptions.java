package dev.strata.lsm.bench.workload;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.bench.engine.BenchEngine;
import dev.strata.lsm.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options {@code run} and {@code compare} share (a picocli mixin), and what both do with
 * them: validate, run the engines over the rounds in fresh directories, print the table,
 * write the JSON and the charts.
 */
public final class WorkloadOptions {

    @Option(names = "--workload", split = ",", defaultValue = "fillrandom,readrandom",
            description = "workloads run in order on one store: fillrandom, fillseq, ingest, readrandom, seekrandom, "
                    + "overwrite, readwhilewriting, load, a, b, c, d, e, f; ingest, and a fill after it, start on an "
                    + "empty store (default ${DEFAULT-VALUE})")
    List<String> workloads;

    @Option(names = "--records", defaultValue = "1000000",
            description = "records the fills write; the key space (default ${DEFAULT-VALUE})")
    long records;

    @Option(names = "--ops", description = "requests per read or mixed workload (default: --records)")
    Long ops;

    @Option(names = "--key-size", defaultValue = "16", description = "bytes per key (default ${DEFAULT-VALUE})")
    int keySize;

    @Option(names = "--value-size", defaultValue = "100", description = "bytes per value (default ${DEFAULT-VALUE})")
    int valueSize;

    @Option(names = "--value-compressibility", defaultValue = "1.0", description = "values compress to about R "
            + "of their size, as db_bench's compression_ratio (default ${DEFAULT-VALUE}: random values)")
    double valueCompressibility;

    @Option(names = "--compression", description = "page codec of every engine: none, lz4, zstd or snappy "
            + "(Strata's compression, RocksDB's CompressionType; LevelDB has snappy only); default: --config's")
    String compression;

    @Option(names = "--bottommost-compression", description = "codec of the bottommost data of every engine "
            + "(Strata's bottommostCompression, RocksDB's bottommost_compression); default: --config's")
    String bottommostCompression;

    @Option(names = "--lz4-acceleration", description = "LZ4's acceleration for every engine, 1 to 65537 "
            + "(Strata's lz4Acceleration, RocksDB's compression_opts.level of minus it); default: --config's")
    Integer lz4Acceleration;

    @Option(names = "--leaf-encoding", description = "Strata's leaf encoding: prefix or plain (leafEncoding); "
            + "default: --config's")
    String leafEncoding;

    @Option(names = "--restart-interval", description = "Strata's restart interval of prefix-compressed leaves "
            + "(restartInterval); default: --config's")
    Integer restartInterval;

    @Option(names = "--threads", defaultValue = "1",
            description = "worker threads; readwhilewriting adds one writer (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--seed", defaultValue = "1", description = "seed of key order, values and requests "
            + "(default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--distribution", description = "key distribution of read and mixed workloads: uniform, "
            + "zipfian, latest, sequential (default: per workload, as db_bench and YCSB)")
    String distribution;

    @Option(names = "--zipf-theta", defaultValue = "0.99", description = "zipfian skew (default ${DEFAULT-VALUE})")
    double zipfTheta;

    @Option(names = "--rate", description = "open loop: total requests per second, latency measured from each "
            + "request's scheduled start (default: closed loop)")
    Double rate;

    @Option(names = "--max-scan-length", defaultValue = "100",
            description = "scans read 1..N records (default ${DEFAULT-VALUE})")
    int maxScanLength;

    @Option(names = "--scan-length", defaultValue = "50",
            description = "seekrandom: records read after each seek, db_bench's seek_nexts (default ${DEFAULT-VALUE})")
    int scanLength;

    @Option(names = "--ingest-file-records", defaultValue = "1000000",
            description = "ingest: records per external table file (default ${DEFAULT-VALUE})")
    long ingestFileRecords;

    @Option(names = "--ingest-verification", defaultValue = "full",
            description = "ingest: how Strata checks the files, full (every page) or index (footer and index "
                    + "pages: IngestOptions.Verification.INDEX); RocksDB keeps its default (default ${DEFAULT-VALUE})")
    String ingestVerification;

    @Option(names = "--config", description = "Strata store configuration (XML); the other engines are sized "
            + "from it (default: Strata's defaults)")
    Path config;

    @Option(names = "--dir", description = "parent of the engines' data directories (default: a new temporary "
            + "directory)")
    Path dir;

    @Option(names = "--keep", description = "keep the data directories")
    boolean keep;

    @Option(names = "--json", description = "write the results as JSON to FILE")
    Path json;

    @Option(names = "--plot", description = "write PNG charts into DIR")
    Path plot;

    @Option(names = "--no-progress", description = "no progress reports on stderr")
    boolean noProgress;

    /**
     * The validated workload settings.
     *
     * @throws IllegalArgumentException naming the bad value and what is allowed
     */
    public WorkloadSettings settings() {
        List<WorkloadType> types = new ArrayList<>();
        for (String w : workloads) {
            types.add(WorkloadType.parse(w.trim()));
        }
        KeyDistribution d = distribution == null ? null : KeyDistribution.parse(distribution.trim());
        return new WorkloadSettings(types, records, ops == null ? records : ops, keySize, valueSize, threads, seed, d,
                zipfTheta, rate, maxScanLength, scanLength, valueCompressibility, ingestFileRecords,
                ingestVerification == null ? "full" : ingestVerification.trim());
    }

    /**
     * Strata's configuration: {@code --config}, or the defaults.
     *
     * @throws dev.strata.lsm.ConfigException naming the file and line of a bad document
     */
    public StoreConfig storeConfig() {
        if (config != null && !Files.isRegularFile(config)) {
            throw new IllegalArgumentException("--config " + config + " is not a readable file");
        }
        StoreConfig c = config == null ? StoreConfig.defaults() : StoreConfig.fromXml(config);
        if (compression != null || bottommostCompression != null || leafEncoding != null || restartInterval != null
                || lz4Acceleration != null) {
            StoreConfig.Builder b = c.toBuilder();
            if (leafEncoding != null) {
                b.leafEncoding(leafEncoding);
            }
            if (restartInterval != null) {
                b.restartInterval(restartInterval);
            }
            if (compression != null) {
                b.compression(compression);
            }
            if (bottommostCompression != null) {
                b.bottommostCompression(bottommostCompression);
            }
            if (lz4Acceleration != null) {
                b.lz4Acceleration(lz4Acceleration);
            }
            c = b.build();
        }
        return c;
    }

    /**
     * Checks engine names.
     *
     * @throws IllegalArgumentException naming the unknown engine and the known ones
     */
    public static List<String> engines(List<String> names) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            String name = n.trim();
            if (!BenchEngine.NAMES.contains(name)) {
                throw new IllegalArgumentException("unknown engine '" + name + "': choose from " + BenchEngine.NAMES);
            }
            if (out.contains(name)) {
                throw new IllegalArgumentException("engine '" + name + "' is listed twice");
            }
            out.add(name);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("give at least one engine");
        }
        return out;
    }

    /**
     * What {@code run} and {@code compare} do: validates everything before any state changes
     * (a bad value is a usage error, exit code 2, naming it), then runs and reports.
     *
     * @param spec the calling command, for usage errors and the recorded command line
     * @return the exit code, 0
     */
    public int call(CommandLine.Model.CommandSpec spec, List<String> engineNames, int rounds)
            throws IOException, InterruptedException {
        List<String> engines;
        WorkloadSettings s;
        StoreConfig c;
        try {
            if (rounds < 1) {
                throw new IllegalArgumentException("--repeat must be at least 1, got " + rounds);
            }
            engines = engines(engineNames);
            s = settings();
            c = storeConfig();
        } catch (IllegalArgumentException | ConfigException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        execute(engines, rounds, s, c, commandLine(spec), System.out);
        return 0;
    }

    /** The command as typed, for the JSON report: "lsm-bench NAME ARGS…". */
    static String commandLine(CommandLine.Model.CommandSpec spec) {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        StringBuilder sb = new StringBuilder("lsm-bench");
        if (args.isEmpty() || !args.get(0).equals(spec.name())) {
            sb.append(' ').append(spec.name());
        }
        for (String a : args) {
            sb.append(' ').append(a);
        }
        return sb.toString();
    }

    /**
     * Runs {@code engines} over {@code rounds} with validated {@code settings} and
     * {@code config}, then prints the table to {@code out} and writes the JSON and charts
     * asked for.
     *
     * @param command the command line, recorded in the JSON
     */
    public Comparison.Outcome execute(List<String> engines, int rounds, WorkloadSettings settings, StoreConfig config,
                                      String command, PrintStream out) throws IOException, InterruptedException {
        PrintStream progress = noProgress ? null : System.err;
        boolean temporary = dir == null;
        Path base = temporary ? Files.createTempDirectory("strata-bench-") : dir;
        Comparison.Outcome outcome;
        try {
            Files.createDirectories(base);
            outcome = Comparison.run(engines, rounds, base, keep, config, settings, progress);
        } finally {
            if (temporary && !keep) {
                Comparison.deleteTree(base);
            } else if (progress != null) {
                progress.println("data directories kept under " + base);
            }
        }
        ResultTable.print(outcome.summary(), settings, out);
        if (json != null) {
            ResultJson.write(outcome.summary(), settings, command, json);
            out.println("wrote " + json);
        }
        if (plot != null) {
            for (Path p : ResultCharts.write(outcome, plot)) {
                out.println("wrote " + p);
            }
        }
        return outcome;
    }
}
