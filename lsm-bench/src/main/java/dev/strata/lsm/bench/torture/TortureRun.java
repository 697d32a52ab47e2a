package dev.strata.lsm.bench.torture;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.WalSyncMode;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The torture parent: starts a {@link TortureChild} JVM per epoch (each with a merge policy,
 * WAL mode and memtable size drawn at random), kills it with SIGKILL at a random moment counted
 * from its start (or, now and then, asks it to close the store cleanly); an epoch after one whose
 * child was killed before it had opened the store counts from the open store instead, so kills
 * still land during open and recovery but a machine too loaded to start a JVM within the interval
 * cannot kill every child before its first write. It reopens the store in this process with
 * yet another policy and checks every key with the {@link Verifier}, then records what it
 * saw as the new expected state and starts the next epoch. The last epoch always ends with
 * a clean close, verified too. The run stops at the first problem: a lost or wrong value, a
 * failed check in the child, an open that fails without an injected fault, or a child that
 * makes no progress for {@link Options#hangSeconds()} (its threads are dumped to the log).
 */
public final class TortureRun {
    static final long[] MEMTABLE_CHOICES = {16 << 10, 64 << 10, 256 << 10, 1 << 20};

    /**
     * What to run.
     *
     * @param minutes how long to run (the last epoch's clean close and check come after)
     * @param policy the only merge policy to use, or null for all registered ones
     * @param walMode sync, async, none, or mixed (each epoch picks one of the three)
     * @param dir the run directory (created; must be empty if it exists)
     * @param keep keep the run directory after a clean run
     * @param killIntervalSeconds mean time from a child's start to its kill
     * @param cleanStopChance probability that an epoch ends by a clean close instead of a kill
     * @param faultRate probability that a write site starts a burst of faults (0: no faults)
     * @param faultKinds fault kinds for every target but the WAL
     * @param walFaultKinds fault kinds for the WAL
     * @param faultTargets the purposes whose files see faults
     * @param keys size of the key space
     * @param hangSeconds a child that makes no progress for this long is a hang
     * @param childHeap the child's -Xmx
     */
    public record Options(double minutes, String policy, String walMode, long seed, Path dir, boolean keep,
                          double killIntervalSeconds, double cleanStopChance, double faultRate,
                          Set<FaultInjectingStorageIO.Kind> faultKinds, Set<FaultInjectingStorageIO.Kind> walFaultKinds,
                          Set<IoPurpose> faultTargets, int keys, int hangSeconds, String childHeap) {
    }

    /** Called after each kill (or clean stop), before the store is reopened and checked; for tests. */
    @FunctionalInterface
    public interface BeforeVerify {
        void accept(Path storeDir, ExpectedState state, int epoch) throws Exception;
    }

    /** Counters of one merge policy (of the epochs it ran in the child). */
    public static final class PolicyTotals {
        long epochs;
        long kills;
        long cleanCloses;
        long ops;
        long faults;
        long failedWrites;
        long verifiedKeys;
        long losses;

        public long epochs() {
            return epochs;
        }

        public long kills() {
            return kills;
        }

        public long losses() {
            return losses;
        }

        public long verifiedKeys() {
            return verifiedKeys;
        }
    }

    /** What a run did and found. */
    public static final class Report {
        final Map<String, PolicyTotals> byPolicy = new TreeMap<>();
        final List<String> failures = new ArrayList<>();
        long epochs;
        long kills;
        long cleanCloses;
        long reopens;
        long faults;
        long failedWrites;
        long ops;
        long checks;
        long verifiedKeys;
        long acknowledgedVerified;
        long pendingSeen;
        long pendingApplied;
        long losses;
        long hangs;
        long openFailures;
        long childCheckFailures;
        long childErrors;
        long elapsedNanos;
        Path dir;
        long seed;

        public boolean failed() {
            return !failures.isEmpty();
        }

        public long kills() {
            return kills;
        }

        public long verifiedKeys() {
            return verifiedKeys;
        }

        public long losses() {
            return losses;
        }

        public long faults() {
            return faults;
        }

        public long reopens() {
            return reopens;
        }

        public List<String> failures() {
            return List.copyOf(failures);
        }

        public Map<String, PolicyTotals> byPolicy() {
            return Map.copyOf(byPolicy);
        }

        /** The summary printed at the end of a run. */
        public String summary() {
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "torture: %s after %.1f min (seed %d, directory %s)%n",
                    failed() ? "FAILED" : "passed", elapsedNanos / 60e9, seed, dir));
            s.append(String.format(Locale.ROOT,
                    "  epochs %d, kills %d, clean closes %d, reopens %d, ops %d, checked reads %d%n",
                    epochs, kills, cleanCloses, reopens, ops, checks));
            s.append(String.format(Locale.ROOT,
                    "  faults injected %d, writes failed by them %d%n", faults, failedWrites));
            s.append(String.format(Locale.ROOT,
                    "  verified keys %d (%d with an acknowledged write; %d pending, %d of them applied)%n",
                    verifiedKeys, acknowledgedVerified, pendingSeen, pendingApplied));
            s.append(String.format(Locale.ROOT, "  losses %d, wrong reads in the child %d, unexpected errors in the "
                    + "child %d, hangs %d, unexpected open failures %d%n", losses, childCheckFailures, childErrors, hangs,
                    openFailures));
            s.append(String.format(Locale.ROOT, "  %-12s %7s %6s %6s %10s %8s %8s %12s %7s%n", "policy", "epochs",
                    "kills", "closes", "ops", "faults", "failed", "verified", "losses"));
            for (Map.Entry<String, PolicyTotals> e : byPolicy.entrySet()) {
                PolicyTotals t = e.getValue();
                s.append(String.format(Locale.ROOT, "  %-12s %7d %6d %6d %10d %8d %8d %12d %7d%n", e.getKey(),
                        t.epochs, t.kills, t.cleanCloses, t.ops, t.faults, t.failedWrites, t.verifiedKeys, t.losses));
            }
            for (String f : failures) {
                s.append("  FAILURE: ").append(f.replace("\n", "\n    ")).append('\n');
            }
            return s.toString();
        }
    }

    private final Options options;
    private final PrintStream progressOut;
    private final BeforeVerify beforeVerify;
    private final SplittableRandom random;
    private final Report report = new Report();
    private final Path storeDir;
    private final Path log;
    private long lastProgressPrint;
    private long progressOps;
    private long progressAt;
    private double opsPerSecond;
    private long epochFaultsBefore;
    private String epochLabel = "";
    /** Whether the last epoch's child was killed before it had opened the store. */
    private boolean lastKillBeforeOpen;

    /**
     * @param progressOut where the progress line goes (null for none)
     * @param beforeVerify called between a child's end and the check (null for nothing)
     */
    public TortureRun(Options options, PrintStream progressOut, BeforeVerify beforeVerify) {
        this.options = options;
        this.progressOut = progressOut;
        this.beforeVerify = beforeVerify;
        this.random = new SplittableRandom(options.seed());
        this.storeDir = options.dir().resolve("db");
        this.log = options.dir().resolve("child.log");
        report.dir = options.dir();
        report.seed = options.seed();
    }

    /** Runs until the time is up or a problem is found. */
    public Report run() throws IOException, InterruptedException {
        long start = System.nanoTime();
        long end = start + (long) (options.minutes() * 60e9);
        Files.createDirectories(options.dir());
        try (var entries = Files.list(options.dir())) {
            if (entries.findAny().isPresent()) {
                throw new IllegalArgumentException("run directory " + options.dir() + " is not empty");
            }
        }
        Files.createDirectories(storeDir);
        try (ExpectedState state = ExpectedState.create(options.dir().resolve("expected-state"), options.keys())) {
            boolean last = false;
            for (int epoch = 1; !last && !report.failed(); epoch++) {
                last = epoch(state, epoch, start, end);
            }
        } finally {
            report.elapsedNanos = System.nanoTime() - start;
            if (progressOut != null) {
                progress(start, end, null, true);
                progressOut.println();
            }
        }
        return report;
    }

    /** Runs one epoch: child, kill or clean stop, check. Returns whether it was the last. */
    private boolean epoch(ExpectedState state, int epoch, long start, long end)
            throws IOException, InterruptedException {
        PolicyChoice policy = PolicyChoice.random(random, options.policy());
        WalSyncMode mode = pickMode();
        long memtable = MEMTABLE_CHOICES[random.nextInt(MEMTABLE_CHOICES.length)];
        long childSeed = random.nextLong();
        PolicyTotals totals = report.byPolicy.computeIfAbsent(policy.name(), n -> new PolicyTotals());
        totals.epochs++;
        report.epochs++;
        epochLabel = "epoch " + epoch + " " + policy + " " + mode.name().toLowerCase(Locale.ROOT);
        String describe = "epoch " + epoch + ": policy " + policy + ", wal " + mode.name().toLowerCase(Locale.ROOT)
                + ", memtable " + memtable + " B, child seed " + childSeed;
        appendLog("=== " + describe);

        state.requestStop(false);
        state.setChildState(ExpectedState.CHILD_STARTING);
        long opsBefore = state.ops();
        long faultsBefore = state.faults();
        epochFaultsBefore = faultsBefore;
        long failedBefore = state.writeFailures();
        Path failureFile = options.dir().resolve("failure-" + epoch + ".txt");
        Process child = startChild(state, policy, mode, memtable, childSeed, failureFile);
        report.reopens++;
        long startedAt = System.nanoTime();
        long killDelay = (long) (options.killIntervalSeconds() * 1e9 * (0.3 + 1.4 * random.nextDouble()));
        // Counted from the child's start, so some kills land while it opens and recovers the store;
        // after such a kill, from its open store, so that no two children in a row die unopened.
        boolean killFromOpen = lastKillBeforeOpen;
        lastKillBeforeOpen = false;
        long killAt = killFromOpen ? Long.MAX_VALUE : startedAt + killDelay;
        boolean cleanStop = random.nextDouble() < options.cleanStopChance();
        boolean last = false;
        boolean stopping = false;
        long stopDeadline = 0;
        long lastOps = state.ops();
        long lastProgress = startedAt;
        String childFailure = null;
        try {
            while (true) {
                long now = System.nanoTime();
                if (!child.isAlive()) {
                    int code = child.exitValue();
                    if (code == 0 && stopping && state.childState() == ExpectedState.CHILD_CLOSED) {
                        report.cleanCloses++;
                        totals.cleanCloses++;
                    } else {
                        childFailure = "child exited with status " + code + " (" + describe + "): "
                                + readFailure(failureFile);
                        if (code == TortureChild.EXIT_OPEN_FAILED) {
                            report.openFailures++;
                        } else if (code == TortureChild.EXIT_CHECK_FAILED) {
                            report.childCheckFailures++;
                        } else {
                            report.childErrors++;
                        }
                    }
                    break;
                }
                if (killAt == Long.MAX_VALUE && state.childState() != ExpectedState.CHILD_STARTING) {
                    killAt = now + killDelay;
                }
                if (!stopping && (now >= end || (now >= killAt && cleanStop))) {
                    state.requestStop(true);
                    stopping = true;
                    last = now >= end;
                    stopDeadline = now + TimeUnit.SECONDS.toNanos(Math.max(60, options.hangSeconds()));
                } else if (!stopping && now >= killAt) {
                    lastKillBeforeOpen = state.childState() == ExpectedState.CHILD_STARTING;
                    child.destroyForcibly();
                    child.waitFor();
                    report.kills++;
                    totals.kills++;
                    break;
                }
                long ops = state.ops();
                if (ops != lastOps) {
                    lastOps = ops;
                    lastProgress = now;
                }
                boolean noProgress = now - lastProgress > TimeUnit.SECONDS.toNanos(options.hangSeconds());
                if (noProgress || (stopping && now > stopDeadline)) {
                    dumpThreads(child);
                    child.destroyForcibly();
                    child.waitFor();
                    report.hangs++;
                    childFailure = "hang: the child " + (stopping ? "did not close the store and exit" : "made no progress")
                            + " for " + (now - (stopping ? stopDeadline - TimeUnit.SECONDS.toNanos(
                            Math.max(60, options.hangSeconds())) : lastProgress)) / 1_000_000_000L
                            + " s in state " + state.childState() + " (" + describe + "); its threads are in " + log;
                    break;
                }
                progress(start, end, state, false);
                Thread.sleep(50);
            }
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly();
                child.waitFor();
            }
        }
        long ops = state.ops() - opsBefore;
        long faults = state.faults() - faultsBefore;
        long failed = state.writeFailures() - failedBefore;
        report.ops += ops;
        totals.ops += ops;
        report.faults += faults;
        totals.faults += faults;
        report.failedWrites += failed;
        totals.failedWrites += failed;
        report.checks = state.checks();
        if (childFailure != null) {
            report.failures.add(childFailure);
            appendLog("FAILURE: " + childFailure);
        }
        verify(state, epoch, policy, mode, memtable, totals, describe);
        return last;
    }

    private WalSyncMode pickMode() {
        String m = options.walMode().toLowerCase(Locale.ROOT);
        if (m.equals("mixed")) {
            int d = random.nextInt(5);
            return d < 2 ? WalSyncMode.SYNC : d < 4 ? WalSyncMode.ASYNC : WalSyncMode.NONE;
        }
        return WalSyncMode.valueOf(m.toUpperCase(Locale.ROOT));
    }

    /** Reopens the store here with another policy and checks every key. */
    private void verify(ExpectedState state, int epoch, PolicyChoice writer, WalSyncMode mode, long memtable,
                        PolicyTotals totals, String describe) throws IOException {
        if (beforeVerify != null) {
            try {
                beforeVerify.accept(storeDir, state, epoch);
            } catch (Exception e) {
                throw new IOException("before-verify hook failed: " + e, e);
            }
        }
        PolicyChoice reader = PolicyChoice.random(random, options.policy());
        StoreConfig config = TortureFamilies.addTo(StoreConfig.builder(), memtable).memtableBytes(memtable).walMode(mode)
                .blockCacheBytes(8L << 20)
                .mergePolicy(reader.name(), reader.params()).build();
        LsmStore store;
        try {
            store = LsmStore.open(storeDir, config);
        } catch (RuntimeException e) {
            report.openFailures++;
            String f = "unexpected open failure after " + describe + " (reopened with " + reader + "): " + e
                    + stackTrace(e);
            report.failures.add(f);
            appendLog("FAILURE: " + f);
            return;
        }
        report.reopens++;
        Verifier.Result r;
        try {
            r = Verifier.verify(store, state);
        } finally {
            try {
                store.close();
            } catch (RuntimeException e) {
                report.failures.add("closing the store after the check failed (" + describe + "): " + e);
            }
        }
        report.verifiedKeys += r.keysChecked();
        totals.verifiedKeys += r.keysChecked();
        report.acknowledgedVerified += r.acknowledgedChecked();
        report.pendingSeen += r.pendingKeys();
        report.pendingApplied += r.pendingApplied();
        if (!r.clean()) {
            report.losses += r.problemCount();
            totals.losses += r.problemCount();
            String f = r.problemCount() + " problem(s) found reopening with " + reader + " after " + describe
                    + ":\n" + String.join("\n", r.problems());
            report.failures.add(f);
            appendLog("FAILURE: " + f);
            return;
        }
        Verifier.settle(state, r);
    }

    private Process startChild(ExpectedState state, PolicyChoice policy, WalSyncMode mode, long memtable, long seed,
                               Path failureFile) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + options.childHeap(), "-XX:+UseSerialGC",
                "-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"), TortureChild.class.getName()));
        cmd.addAll(new TortureChildArguments(storeDir, state.file(), failureFile, seed, policy.name(),
                policy.params(), mode, memtable, options.faultRate(), options.faultKinds(), options.walFaultKinds(),
                options.faultTargets()).toArgs());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.redirectInput(ProcessBuilder.Redirect.PIPE);
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }

    private void dumpThreads(Process child) {
        try {
            new ProcessBuilder("kill", "-3", Long.toString(child.pid())).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
            Thread.sleep(2000);
        } catch (IOException e) {
            appendLog("cannot dump the child's threads: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String readFailure(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "(no failure report; see " + log + ")";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private void appendLog(String line) {
        try {
            Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            // The log is a diagnostic aid only.
        }
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter s = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(s));
        return "\n" + s;
    }

    /** Redraws the single progress line at most twice a second (and always when {@code force}). */
    private void progress(long start, long end, ExpectedState state, boolean force) {
        if (progressOut == null) {
            return;
        }
        long now = System.nanoTime();
        if (!force && now - lastProgressPrint < 500_000_000L) {
            return;
        }
        long faults = report.faults;
        if (state != null) {
            long ops = state.ops();
            if (progressAt != 0 && now > progressAt && ops >= progressOps) {
                opsPerSecond = (ops - progressOps) / ((now - progressAt) / 1e9);
            }
            progressOps = ops;
            progressAt = now;
            faults += Math.max(0, state.faults() - epochFaultsBefore);
        }
        lastProgressPrint = now;
        String line = String.format(Locale.ROOT,
                "torture %s/%s  kills %d  faults %d  verified %d keys  %,.0f ops/s  losses %d  %s",
                clock(now - start), clock(end - start), report.kills, faults, report.verifiedKeys,
                opsPerSecond, report.losses, epochLabel);
        if (line.length() > 130) {
            line = line.substring(0, 130);
        }
        progressOut.print("\r" + line + " ".repeat(Math.max(0, 130 - line.length())));
        progressOut.flush();
    }

    private static String clock(long nanos) {
        long s = Math.max(0, nanos / 1_000_000_000L);
        return String.format(Locale.ROOT, "%02d:%02d", s / 60, s % 60);
    }

    /** Every fault kind. */
    public static Set<FaultInjectingStorageIO.Kind> allKinds() {
        return EnumSet.allOf(FaultInjectingStorageIO.Kind.class);
    }

    /** The purposes that see faults by default: WAL, flush, merge and manifest files. */
    public static Set<IoPurpose> defaultTargets() {
        return EnumSet.of(IoPurpose.WAL, IoPurpose.FLUSH, IoPurpose.MERGE, IoPurpose.MANIFEST);
    }
}
