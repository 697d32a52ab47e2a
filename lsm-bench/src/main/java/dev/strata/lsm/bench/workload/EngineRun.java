package dev.strata.lsm.bench.workload;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.bench.engine.BenchEngine;

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
     */
    public record Result(String engine, String description, String durability, List<WorkloadResult> workloads,
                         Timeline timeline) {
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
        try (BenchEngine engine = BenchEngine.open(name, dir, config)) {
            return execute(engine, dir, settings, progress, ioSource);
        }
    }

    /**
     * Runs every workload on {@code engine}, already open on {@code dir}; the caller closes it.
     * Tests pass engines of their own here.
     */
    public static Result execute(BenchEngine engine, Path dir, WorkloadSettings settings, PrintStream progress)
            throws InterruptedException {
        try {
            java.nio.file.Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + dir, e);
        }
        return execute(engine, dir, settings, progress, ProcessIo.sourceFor(dir));
    }

    private static Result execute(BenchEngine engine, Path dir, WorkloadSettings settings, PrintStream progress,
                                  String ioSource) throws InterruptedException {
        RecordFormat format = new RecordFormat(settings.keySize(), settings.valueSize(), settings.seed(),
                settings.valueCompressibility());
        Keyspace keyspace = new Keyspace(settings.records());
        ProcessIo ioAtOpen = ProcessIo.read();
        List<WorkloadResult> results = new ArrayList<>();
        Timeline timeline;
        try (Monitor monitor = new Monitor(engine.name(), dir, ioAtOpen, ioSource, progress)) {
            WorkloadDriver driver = new WorkloadDriver(engine, dir, settings, format, keyspace, monitor, ioAtOpen,
                    ioSource);
            List<WorkloadType> workloads = settings.workloads();
            for (int i = 0; i < workloads.size(); i++) {
                WorkloadType type = workloads.get(i);
                if (type.shape() != WorkloadType.Shape.FILL && !keyspace.loaded() && progress != null) {
                    progress.printf("[%s] note: %s runs before any fill or load; its reads will miss%n",
                            engine.name(), type.label());
                }
                results.add(driver.run(type, i));
            }
            timeline = monitor.timeline();
        }
        return new Result(engine.name(), engine.describe(), engine.durability(), results, timeline);
    }
}
