package dev.strata.lsm.policy.crash;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * SIGKILL with each partitioned or leveled family active ({@code spooky}: partitioned and
 * dividing merges; {@code vlsm}: L0→L1 vSST merges; {@code blockdb}: block compactions;
 * {@code one-leveling}): a child writes overwrites of a small key space with 64 KiB
 * memtables, so merges run nearly all the time, and is killed at random moments. After every
 * kill: the store opens, every acknowledged write is there (the one in flight applied or
 * not), no table file in the directory is outside the live versions (no orphan), and no
 * policy error was counted. Replay with {@code -Dstrata.test.seed=N}.
 */
@DisabledOnOs(OS.WINDOWS)
@SlowTest
class PolicyKillTest {
    private static final int KEYS = 8_000;
    /** Kills per policy: one in the fast lane, ten in the slow lane (PolicyKillTest at multiplier 3). */
    private static final int KILLS = TestScale.scaled(1);

    @TempDir
    Path dir;
    @TempDir
    Path logs;

    /** A policy name, or {@code spooky:LAYOUT} for spooky with that layout. */
    static StoreConfig config(String policyAndLayout) {
        String policy = policyAndLayout.startsWith("spooky:") ? "spooky" : policyAndLayout;
        String layout = policy.equals(policyAndLayout) ? "leveling" : policyAndLayout.substring("spooky:".length());
        Map<String, String> params = switch (policy) {
            case "spooky" -> Map.of("size-ratio", "3", "l0-compaction-trigger", "2", "l0-slowdown-trigger", "4",
                    "l0-stop-trigger", "6", "layout", layout);
            case "vlsm" -> Map.of("sst-bytes", "64KiB", "growth", "4");
            default -> Map.of("size-ratio", "4");
        };
        return StoreConfig.builder().memtableBytes(64 << 10).blockCacheBytes(1 << 20).mergePolicy(policy, params)
                .build();
    }

    static byte[] key(long id) {
        return TestKeys.padded("key-", (id * 7919) % KEYS, 8).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(long id) {
        return ("value-" + id + "-" + "v".repeat((int) (id % 200))).getBytes(StandardCharsets.UTF_8);
    }

    /** The child: args = directory, policy, first id; acknowledges each write on stdout. */
    public static void main(String[] args) throws Exception {
        writeUntilKilled(args, childOut(), config(args[1]));
    }

    /** The child's stdout, flushed on every line (the parent reads acknowledgements from it). */
    static PrintStream childOut() {
        return new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    }

    /** The child's loop: args = directory, policy, first id; prints "started", then each acknowledged id. */
    static void writeUntilKilled(String[] args, PrintStream out, StoreConfig config) {
        long id = Long.parseLong(args[2]);
        try (LsmStore store = LsmStore.open(Path.of(args[0]), config)) {
            out.println("started");
            for (; ; id++) {
                store.put(key(id), value(id));
                out.println(id);
            }
        }
    }

    /** Starts {@code main}'s class as a child JVM with the test's class path; its stderr goes to {@code err}. */
    static Process startChild(Class<?> main, Path err, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(err.toFile()).start();
    }

    /**
     * spooky, vlsm and blockdb (a policy of each kind of merge the kills land in: partitioned,
     * variable-size, block compaction) in the fast lane; spooky's tiering layout and
     * one-leveling too in the slow lane (PolicyKillTest at multiplier 3).
     */
    static java.util.stream.Stream<String> policies() {
        return TestScale.multiplier() > 1
                ? java.util.stream.Stream.of("spooky", "spooky:tiering", "vlsm", "blockdb", "one-leveling")
                : java.util.stream.Stream.of("spooky", "vlsm", "blockdb");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void acknowledgedWritesSurviveKills(String policy) throws Exception {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        String where = policy + ", seed " + seed + " (replay with -Dstrata.test.seed=" + seed + ")";
        long next = 0;
        for (int kill = 0; kill < KILLS; kill++) {
            Path err = logs.resolve(policy + "-" + kill + ".err");
            Process p = startChild(PolicyKillTest.class, err, dir.toString(), policy, Long.toString(next));
            AtomicLong acked = new AtomicLong(next - 1);
            boolean[] started = {false};
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.equals("started")) {
                            started[0] = true;
                        } else {
                            acked.set(Long.parseLong(line));
                        }
                    }
                } catch (IOException | NumberFormatException ignored) {
                    // The child died mid-line.
                }
            });
            reader.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!started[0] && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(5);
            }
            assertTrue(started[0], where + ": child " + kill + " started\n" + Files.readString(err));
            Thread.sleep(400 + rnd.nextInt(1_600));
            assertTrue(p.isAlive(), where + ": child " + kill + " alive\n" + Files.readString(err));
            p.toHandle().destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            reader.join(30_000);
            String log = Files.readString(err);
            assertTrue(!log.contains("SEVERE") && !log.contains("Exception"), where + ": child " + kill
                    + " reported errors:\n" + log);
            next = verifyAfterKill(dir, acked.get(), where + ", kill " + kill) + 1;
        }
        System.out.printf("PolicyKillTest %s: %d kills, %d writes acknowledged, seed %d%n", policy, KILLS, next, seed);
    }

    /**
     * After a kill: opens the store with no-merge (with the policy, merges would start at once
     * and their outputs in progress would look like orphans) and checks that every write up to
     * {@code last} (and the one in flight, if it landed) reads back, that no table file is
     * outside the live versions, and that no policy error was counted. Returns the last id written.
     */
    static long verifyAfterKill(Path dir, long last, String where) throws IOException {
        try (LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(64 << 10)
                .mergePolicy("no-merge").build())) {
            long lastWritten = last;
            byte[] inFlight = store.get(key(last + 1));
            if (inFlight != null && Arrays.equals(inFlight, value(last + 1))) {
                lastWritten = last + 1;
            }
            for (long id = Math.max(0, lastWritten - KEYS + 1); id <= lastWritten; id++) {
                assertArrayEquals(value(id), store.get(key(id)), where + ", id " + id);
            }
            Set<Long> files = new TreeSet<>();
            try (var s = Files.list(dir)) {
                s.forEach(f -> {
                    long n = dev.strata.lsm.version.TableFiles.parseNumber(f.getFileName().toString());
                    if (n >= 0) {
                        files.add(n);
                    }
                });
            }
            Set<Long> live = new TreeSet<>();
            for (long n : store.stats().liveTableFileNumbers()) {
                live.add(n);
            }
            assertEquals(live, files, where + ": no orphan table files after open");
            assertEquals(0, store.stats().policyErrors(), where);
            return lastWritten;
        }
    }
}
