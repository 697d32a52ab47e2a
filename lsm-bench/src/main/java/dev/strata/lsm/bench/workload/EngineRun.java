package dev.strata.lsm.bench.workload;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.bench.engine.BenchEngine;
import dev.strata.lsm.bench.engine.BulkIngest;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One engine, one fresh directory, the whole workload list in order on the same store —
 * the unit that {@code run} performs once and {@code compare} once per engine per round.
 */
public final class EngineRun {

    /**
     * What one engine run measured.
     *
     * @param engine engine name
     * @param description the engine's settings
     * @param durability what an acknowledged write survives
     * @param workloads one result per workload, in list order
     * @param timeline counters sampled once a second
     * @param ingestMethod how the engine's ingest workload loads files; null when it has none
     */
    public record Result(String engine, String description, String durability, List<WorkloadResult> workloads,
                         Timeline timeline, String ingestMethod) {
    }

    /** Opens an engine on a fresh directory (the {@code ingest} workload's empty store). */
    @FunctionalInterface
    public interface Reopener {
        /** Opens the engine again on {@code dir}, which exists and is empty. */
        BenchEngine open(Path dir);
    }

    private EngineRun() {
    }

    /**
     * Opens engine {@code name} in {@code dir} (fresh), runs every workload, closes it.
     *
     * @param progress where progress goes, or null for none
     */
    public static Result execute(String name, Path dir, StoreConfig config, WorkloadSettings settings,
                                 PrintStream progress) throws InterruptedException {
        Path parent = dir.toAbsolutePath().getParent();
        try {
            java.nio.file.Files.createDirectories(parent);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + parent, e);
        }
        // Probed beside the data directory, on the same file system, before the engine writes.
        String ioSource = ProcessIo.sourceFor(parent);
        BenchEngine[] engine = {BenchEngine.open(name, dir, config)};
        try {
            return execute(engine, dir, settings, progress, ioSource, d -> BenchEngine.open(name, d, config));
        } finally {
            if (engine[0] != null) {
                engine[0].close();
            }
        }
    }

    /**
     * Runs every workload on {@code engine}, already open on {@code dir}; the caller closes it.
     * Tests pass engines of their own here.
     */
    public static Result execute(BenchEngine engine, Path dir, WorkloadSettings settings, PrintStream progress)
            throws InterruptedException {
        return execute(engine, dir, settings, progress, null);
    }

    /**
     * As {@link #execute(BenchEngine, Path, WorkloadSettings, PrintStream)}, with {@code reopen}
     * to start a workload on an empty store (see {@link #startsFresh}); when it does, the
     * engine passed in is closed and the one {@code reopen} opened is closed here. Null when
     * no workload needs it.
     */
    public static Result execute(BenchEngine engine, Path dir, WorkloadSettings settings, PrintStream progress,
                                 Reopener reopen) throws InterruptedException {
        try {
            java.nio.file.Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + dir, e);
        }
        BenchEngine[] holder = {engine};
        try {
            return execute(holder, dir, settings, progress, ProcessIo.sourceFor(dir), reopen);
        } finally {
            if (holder[0] != engine && holder[0] != null) {
                holder[0].close();
            }
        }
    }

    /**
     * True when workload {@code index} of {@code workloads} starts on an empty store: an
     * {@code ingest} after any other workload (RocksDB and Strata place ingested files on the
     * deepest level only when nothing overlaps them), and a fill after an {@code ingest}
     * (so that {@code ingest,fillseq} compares the two ways of loading an empty store, as
     * db_bench's fills start on a fresh database). Lists without {@code ingest} never do.
     */
    public static boolean startsFresh(List<WorkloadType> workloads, int index) {
        WorkloadType type = workloads.get(index);
        if (index == 0 || !type.loads()) {
            return false;
        }
        return type == WorkloadType.INGEST || workloads.subList(0, index).contains(WorkloadType.INGEST);
    }

    /** engine[0] is the open engine; replaced (and the old one closed) when a workload starts fresh. */
    private static Result execute(BenchEngine[] engine, Path dir, WorkloadSettings settings, PrintStream progress,
                                  String ioSource, Reopener reopen) throws InterruptedException {
        RecordFormat format = new RecordFormat(settings.keySize(), settings.valueSize(), settings.seed(),
                settings.valueCompressibility());
        Keyspace keyspace = new Keyspace(settings.records());
        ProcessIo ioAtOpen = ProcessIo.read();
        List<WorkloadResult> results = new ArrayList<>();
        Timeline timeline;
        String name = engine[0].name();
        String description = engine[0].describe();
        String durability = engine[0].durability();
        BulkIngest bulk = engine[0].bulkIngest();
        String ingestMethod = bulk == null ? null : bulk.describe();
        try (Monitor monitor = new Monitor(name, dir, ioAtOpen, ioSource, progress)) {
            WorkloadDriver driver = new WorkloadDriver(engine[0], dir, settings, format, keyspace, monitor, ioAtOpen,
                    ioSource);
            List<WorkloadType> workloads = settings.workloads();
            for (int i = 0; i < workloads.size(); i++) {
                WorkloadType type = workloads.get(i);
                if (startsFresh(workloads, i)) {
                    if (reopen == null) {
                        throw new IllegalArgumentException(type.label() + " at position " + (i + 1)
                                + " needs an empty store and this run cannot reopen its engine");
                    }
                    if (progress != null) {
                        progress.printf("[%s] %s starts on an empty store: closing the engine, deleting %s, reopening%n",
                                name, type.label(), dir);
                    }
                    BenchEngine old = engine[0];
                    engine[0] = null;
                    old.close();
                    Comparison.deleteTree(dir);
                    try {
                        java.nio.file.Files.createDirectories(dir);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException("cannot create " + dir, e);
                    }
                    engine[0] = reopen.open(dir);
                    keyspace = new Keyspace(settings.records());
                    driver = new WorkloadDriver(engine[0], dir, settings, format, keyspace, monitor, ioAtOpen,
                            ioSource);
                }
                if (!type.loads() && !keyspace.loaded() && progress != null) {
                    progress.printf("[%s] note: %s runs before any fill or load; its reads will miss%n",
                            name, type.label());
                }
                results.add(driver.run(type, i));
            }
            timeline = monitor.timeline();
        }
        return new Result(name, description, durability, results, timeline, ingestMethod);
    }
}
