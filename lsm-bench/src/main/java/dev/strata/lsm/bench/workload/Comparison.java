package dev.strata.lsm.bench.workload;

import dev.strata.lsm.StoreConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The same workload list on several engines over several rounds. Each engine runs in a fresh
 * directory, one engine at a time (they would otherwise share two cores and a disk), and
 * round r runs the engines in rotation r of the list, so that no engine always goes first
 * (cold page cache, fresh JIT) or last.
 */
public final class Comparison {

    /**
     * Everything measured.
     *
     * @param rounds for each round, the engine runs in the order they ran
     * @param summary medians over rounds
     */
    public record Outcome(List<List<EngineRun.Result>> rounds, Summary summary) {
    }

    private Comparison() {
    }

    /** Rotation {@code round} of {@code engines}: round 0 is the list as given. */
    public static List<String> rotation(List<String> engines, int round) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < engines.size(); i++) {
            order.add(engines.get((i + round) % engines.size()));
        }
        return order;
    }

    /**
     * Runs {@code rounds} rounds. Engine directories are {@code baseDir/ENGINE-roundN}; each
     * is deleted when its run ends unless {@code keep}.
     *
     * @param progress where progress goes, or null for none
     */
    public static Outcome run(List<String> engines, int rounds, Path baseDir, boolean keep, StoreConfig config,
                              WorkloadSettings settings, PrintStream progress) throws InterruptedException {
        List<List<EngineRun.Result>> all = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            List<EngineRun.Result> results = new ArrayList<>();
            for (String engine : rotation(engines, round)) {
                Path dir = baseDir.resolve(engine + "-round" + (round + 1));
                if (progress != null) {
                    progress.printf("[%s] round %d of %d in %s%n", engine, round + 1, rounds, dir);
                }
                try {
                    results.add(EngineRun.execute(engine, dir, config, settings, progress));
                } finally {
                    if (!keep) {
                        deleteTree(dir);
                    }
                }
            }
            all.add(results);
        }
        return new Outcome(all, Summary.of(engines, all));
    }

    /** Deletes {@code dir} and everything below it; a missing directory is fine. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
