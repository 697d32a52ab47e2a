package dev.strata.lsm.bench;

import dev.strata.lsm.bench.torture.FaultInjectingStorageIO;
import dev.strata.lsm.bench.torture.PolicyChoice;
import dev.strata.lsm.bench.torture.TortureRun;
import dev.strata.lsm.io.IoPurpose;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code torture}: RocksDB's {@code db_crashtest} idea for Strata. A child JVM runs a random
 * mix of writes, checked reads, scans, snapshots and flushes with faults injected through
 * the storage IO SPI; the parent kills it with SIGKILL at random moments, reopens the store
 * with another merge policy and checks every key against an expected-state file. Exits 1 on
 * any lost or wrong value, hang or unexpected open failure. See
 * {@link dev.strata.lsm.bench.torture} for the design.
 */
@Command(name = "torture", mixinStandardHelpOptions = true,
        description = {"Crash-and-fault test: kill a writing child JVM at random moments, reopen, verify every "
                + "acknowledged write.",
                "WAL modes: in sync and async every acknowledged write must survive a kill; in none only what "
                        + "was acknowledged before a flush() or clean close returned (the rest may or may not be "
                        + "there). Writes that failed with an exception may or may not be there in every mode."})
public final class TortureCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--minutes", required = true, description = "how long to run (fractions allowed)")
    double minutes;

    @Option(names = "--policy", description = "the only merge policy to use (default: every registered one, "
            + "a random one at each reopen)")
    String policy;

    @Option(names = "--wal-mode", defaultValue = "mixed",
            description = "sync | async | none | mixed (each epoch picks one; default ${DEFAULT-VALUE})")
    String walMode;

    @Option(names = "--seed", description = "seed of every random choice (default: from the clock; printed)")
    Long seed;

    @Option(names = "--dir", description = "run directory, kept afterwards (default: a new temporary directory, "
            + "deleted after a clean run)")
    Path dir;

    @Option(names = "--keep", description = "keep the temporary run directory after a clean run")
    boolean keep;

    @Option(names = "--kill-interval", defaultValue = "5",
            description = "mean seconds from a child's start to its kill; after a child killed before it opened the store, from the next one's open store (default ${DEFAULT-VALUE})")
    double killInterval;

    @Option(names = "--clean-stop-chance", defaultValue = "0.1",
            description = "probability that an epoch ends in a clean close instead of a kill (default ${DEFAULT-VALUE})")
    double cleanStopChance;

    @Option(names = "--faults", defaultValue = "on", description = "on | off (default ${DEFAULT-VALUE})")
    String faults;

    @Option(names = "--fault-rate", defaultValue = "0.002",
            description = "probability that a write site starts a burst of 1-4 faults (default ${DEFAULT-VALUE})")
    double faultRate;

    @Option(names = "--fault-kinds", defaultValue = "enospc,eio,torn", split = ",",
            description = "fault kinds for flush, merge and manifest files (default ${DEFAULT-VALUE})")
    List<String> faultKinds = new ArrayList<>();

    @Option(names = "--wal-fault-kinds", split = ",",
            description = "fault kinds for WAL files (default: --fault-kinds; e.g. eio,torn to spare the WAL "
                    + "disk-full faults)")
    List<String> walFaultKinds;

    @Option(names = "--fault-targets", defaultValue = "wal,flush,merge,manifest", split = ",",
            description = "files that see faults, by purpose (default ${DEFAULT-VALUE})")
    List<String> faultTargets = new ArrayList<>();

    @Option(names = "--keys", defaultValue = "20000", description = "size of the key space (default ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--hang-seconds", defaultValue = "120",
            description = "a child without progress for this long is a hang (default ${DEFAULT-VALUE})")
    int hangSeconds;

    @Option(names = "--child-heap", defaultValue = "512m", description = "the child JVM's -Xmx (default ${DEFAULT-VALUE})")
    String childHeap;

    @Option(names = "--no-progress", description = "no progress line on stderr")
    boolean noProgress;

    /** Set by tests: runs between a child's end and the check. */
    TortureRun.BeforeVerify beforeVerify;

    @Override
    public Integer call() throws IOException, InterruptedException {
        TortureRun.Options options = options();
        boolean temporary = dir == null;
        System.err.printf(Locale.ROOT, "torture: %.1f min, policy %s, wal %s, seed %d, faults %s, directory %s%n",
                minutes, policy == null ? "all" : policy, walMode, options.seed(),
                options.faultRate() == 0 ? "off" : "rate " + options.faultRate() + " on " + options.faultTargets()
                        + " (" + options.faultKinds() + ", WAL " + options.walFaultKinds() + ")",
                options.dir());
        TortureRun.Report report = new TortureRun(options, noProgress ? null : System.err, beforeVerify).run();
        System.out.print(report.summary());
        if (report.failed() || !temporary || keep) {
            System.out.println("run directory kept: " + options.dir() + " (child log: child.log)");
        } else {
            deleteTree(options.dir());
        }
        return report.failed() ? 1 : 0;
    }

    private TortureRun.Options options() throws IOException {
        if (!(minutes > 0)) {
            throw usage("--minutes must be positive, got " + minutes);
        }
        List<String> names = PolicyChoice.registered();
        if (policy != null && !names.contains(policy)) {
            throw usage("unknown merge policy '" + policy + "'; available: " + String.join(", ", names));
        }
        String mode = walMode.toLowerCase(Locale.ROOT);
        if (!List.of("sync", "async", "none", "mixed").contains(mode)) {
            throw usage("unknown WAL mode '" + walMode + "'; expected sync, async, none or mixed");
        }
        if (!faults.equals("on") && !faults.equals("off")) {
            throw usage("--faults must be on or off, got '" + faults + "'");
        }
        if (!(faultRate >= 0 && faultRate <= 1)) {
            throw usage("--fault-rate must be in [0, 1], got " + faultRate);
        }
        if (!(killInterval > 0)) {
            throw usage("--kill-interval must be positive, got " + killInterval);
        }
        if (!(cleanStopChance >= 0 && cleanStopChance <= 1)) {
            throw usage("--clean-stop-chance must be in [0, 1], got " + cleanStopChance);
        }
        if (keys < 1 || keys > 10_000_000) {
            throw usage("--keys must be from 1 to 10000000, got " + keys);
        }
        if (hangSeconds < 5) {
            throw usage("--hang-seconds must be at least 5, got " + hangSeconds);
        }
        if (!childHeap.matches("[0-9]+[kKmMgG]?")) {
            throw usage("--child-heap must be a JVM heap size such as 512m, got '" + childHeap + "'");
        }
        Set<FaultInjectingStorageIO.Kind> kinds = kinds(faultKinds, "--fault-kinds");
        Set<FaultInjectingStorageIO.Kind> walKinds = walFaultKinds == null ? kinds : kinds(walFaultKinds,
                "--wal-fault-kinds");
        Set<IoPurpose> targets = EnumSet.noneOf(IoPurpose.class);
        for (String t : faultTargets) {
            String n = t.trim().toUpperCase(Locale.ROOT);
            if (!List.of("WAL", "FLUSH", "MERGE", "MANIFEST").contains(n)) {
                throw usage("unknown fault target '" + t + "'; expected wal, flush, merge or manifest");
            }
            targets.add(IoPurpose.valueOf(n));
        }
        long s = seed != null ? seed : System.nanoTime() ^ System.currentTimeMillis();
        Path runDir = dir;
        if (runDir == null) {
            runDir = Files.createTempDirectory("strata-torture-");
        } else if (Files.exists(runDir)) {
            try (Stream<Path> entries = Files.list(runDir)) {
                if (entries.findAny().isPresent()) {
                    throw usage("run directory " + runDir + " is not empty");
                }
            }
        }
        double rate = faults.equals("off") ? 0 : faultRate;
        return new TortureRun.Options(minutes, policy, mode, s, runDir, keep, killInterval, cleanStopChance, rate,
                kinds, walKinds, targets, keys, hangSeconds, childHeap);
    }

    private Set<FaultInjectingStorageIO.Kind> kinds(List<String> list, String option) {
        Set<FaultInjectingStorageIO.Kind> kinds = EnumSet.noneOf(FaultInjectingStorageIO.Kind.class);
        for (String k : list) {
            if (k.isBlank()) {
                continue;
            }
            try {
                kinds.add(FaultInjectingStorageIO.Kind.parse(k));
            } catch (IllegalArgumentException e) {
                throw usage(option + ": " + e.getMessage());
            }
        }
        return kinds;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("cannot delete " + root + ": " + e);
        }
    }
}
