package dev.strata.lsm.server;

import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * A node in a child process takes SETs from several client threads and is SIGKILLed at
 * random moments; after each restart every acknowledged SET is there with its value (or
 * with the value of the one SET of that thread that was in flight when the node died).
 * Beside them a client writes a hash with HSETs of three fields each: after each restart every
 * acknowledged HSET's fields are there, an HSET is all or nothing (its three fields agree), and
 * the hash's field count (HLEN, from its metadata record) is the number of its fields. A third
 * client INCRs a counter (merge operands once it exists): after each restart it holds the last
 * acknowledged INCR's answer, or one more when an INCR was in flight.
 * Replay a run with {@code -Dstrata.test.seed=N}.
 */
@SlowTest
class NodeCrashTest {
    /** Node kills: one in the fast lane, six in the slow lane (this class at multiplier 3). */
    private static final int KILLS = TestScale.multiplier() > 1 ? 2 * TestScale.scaled(1) : 1;
    private static final int THREADS = 4;
    private static final int KEYS_PER_THREAD = 400;
    /** SETs (all client threads) and HSETs acknowledged in a round before its kill may come. */
    private static final long MIN_SETS_PER_KILL = 51;
    private static final long MIN_HSETS_PER_KILL = 21;

    /** The hash client's log: the last acknowledged value per group of three fields, and the HSET in flight. */
    private static final class HashLog {
        final Map<Integer, String> acked = new HashMap<>();
        volatile int inflightGroup = -1;
        volatile String inflightValue;
    }

    /**
     * The counter client's log: the last value an acknowledged INCR answered, and whether an
     * INCR was in flight at the kill. INCRs of a live counter are merge operands (the WAL holds
     * them; a restart replays them), so this checks the replay of operands after SIGKILL.
     */
    private static final class CounterLog {
        volatile long acked;
        volatile boolean inflight;
        /** An INCR answer that was not the last one plus one (null: none). */
        volatile String wrongAnswer;
    }

    private static final String COUNTER = "crash:counter";
    /** INCRs acknowledged in a round before its kill may come. */
    private static final long MIN_INCRS_PER_KILL = 51;

    private static final String HASH = "crash:hash";
    private static final int HASH_GROUPS = 300;

    /** What one client thread knows: the last acknowledged value per key, and the SET in flight. */
    private static final class ClientLog {
        final Map<String, String> acked = new HashMap<>();
        String inflightKey;
        String inflightValue;
    }

    @Test
    void acknowledgedSetsSurviveSigkill(@TempDir Path dir) throws Exception {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        ClientLog[] logs = new ClientLog[THREADS];
        for (int t = 0; t < THREADS; t++) {
            logs[t] = new ClientLog();
        }
        long totalAcked = 0;
        HashLog hashLog = new HashLog();
        long[] hashAcked = new long[1];
        CounterLog counterLog = new CounterLog();
        long[] incrsAcked = new long[1];
        for (int round = 0; round < KILLS; round++) {
            Process node = startNode(dir);
            int port = awaitReady(node);
            verify(port, logs, "seed " + seed + ", after kill " + round);
            verifyHash(port, hashLog, "seed " + seed + ", after kill " + round);
            verifyCounter(port, counterLog, "seed " + seed + ", after kill " + round);
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> writers = new ArrayList<>();
            long[] acked = new long[THREADS];
            AtomicLong setsThisRound = new AtomicLong();
            AtomicLong hsetsThisRound = new AtomicLong();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                int r = round;
                Thread w = new Thread(() -> acked[thread] = write(port, thread, r, logs[thread], stop, setsThisRound));
                w.start();
                writers.add(w);
            }
            int hashRound = round;
            Thread hashWriter = new Thread(() -> hashAcked[0] += writeHash(port, hashRound, hashLog, stop,
                    hsetsThisRound));
            hashWriter.start();
            writers.add(hashWriter);
            AtomicLong incrsThisRound = new AtomicLong();
            Thread counterWriter = new Thread(() -> incrsAcked[0] += writeCounter(port, counterLog, stop, incrsThisRound));
            counterWriter.start();
            writers.add(counterWriter);
            // The kill comes 300-1,200 ms after the round has acknowledged the writes the checks below
            // need (counted, not waited for by time: on a loaded machine the clients start slowly).
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while ((setsThisRound.get() < MIN_SETS_PER_KILL || hsetsThisRound.get() < MIN_HSETS_PER_KILL
                    || incrsThisRound.get() < MIN_INCRS_PER_KILL)
                    && System.nanoTime() < waitUntil && node.isAlive()) {
                Thread.sleep(10);
            }
            Thread.sleep(300 + rnd.nextInt(900));
            node.destroyForcibly();
            assertTrue(node.waitFor(30, TimeUnit.SECONDS), "node did not die");
            stop.set(true);
            for (Thread w : writers) {
                w.join(30_000);
                assertTrue(!w.isAlive(), "a client thread hung after the kill");
            }
            for (long a : acked) {
                totalAcked += a;
            }
        }
        Process node = startNode(dir);
        try {
            int port = awaitReady(node);
            verify(port, logs, "seed " + seed + ", final");
            verifyHash(port, hashLog, "seed " + seed + ", final");
            verifyCounter(port, counterLog, "seed " + seed + ", final");
        } finally {
            node.destroy();
            node.waitFor(30, TimeUnit.SECONDS);
        }
        System.out.println("NodeCrashTest: " + KILLS + " kills, " + totalAcked + " acknowledged SETs, "
                + hashAcked[0] + " acknowledged HSETs, " + incrsAcked[0] + " acknowledged INCRs, seed " + seed);
        assertTrue(incrsAcked[0] >= KILLS * MIN_INCRS_PER_KILL, "too few INCRs acknowledged to test anything: "
                + incrsAcked[0]);
        assertTrue(hashAcked[0] >= KILLS * MIN_HSETS_PER_KILL, "too few HSETs acknowledged to test anything: " + hashAcked[0]);
        assertTrue(totalAcked >= KILLS * MIN_SETS_PER_KILL, "too few writes acknowledged to test anything: " + totalAcked);
    }

    private static long write(int port, int thread, int round, ClientLog log, AtomicBoolean stop, AtomicLong counted) {
        long n = 0;
        try (Jedis j = new Jedis("127.0.0.1", port, 5000)) {
            for (int i = 0; !stop.get(); i++) {
                String key = "t" + thread + ":" + (i % KEYS_PER_THREAD);
                String value = "r" + round + "-i" + i + "-" + "x".repeat(i % 50);
                log.inflightKey = key;
                log.inflightValue = value;
                j.set(key, value);
                log.acked.put(key, value);
                log.inflightKey = null;
                n++;
                counted.incrementAndGet();
            }
        } catch (RuntimeException e) {
            // The node was killed under us: the SET in flight may or may not have been applied.
        }
        return n;
    }

    private static long writeHash(int port, int round, HashLog log, AtomicBoolean stop, AtomicLong counted) {
        long n = 0;
        try (Jedis j = new Jedis("127.0.0.1", port, 5000)) {
            for (int i = 0; !stop.get(); i++) {
                int group = i % HASH_GROUPS;
                String value = "r" + round + "-i" + i;
                log.inflightValue = value;
                log.inflightGroup = group;
                j.hset(HASH, Map.of("g" + group + ":a", value, "g" + group + ":b", value, "g" + group + ":c", value));
                log.acked.put(group, value);
                log.inflightGroup = -1;
                n++;
                counted.incrementAndGet();
            }
        } catch (RuntimeException e) {
            // The node was killed under us: the HSET in flight may or may not have been applied.
        }
        return n;
    }

    private static long writeCounter(int port, CounterLog log, AtomicBoolean stop, AtomicLong counted) {
        long n = 0;
        try (Jedis j = new Jedis("127.0.0.1", port, 5000)) {
            while (!stop.get()) {
                log.inflight = true;
                long value = j.incr(COUNTER);
                if (value != log.acked + 1 && log.wrongAnswer == null) {
                    log.wrongAnswer = "INCR answered " + value + " after " + log.acked;
                }
                log.acked = value;
                log.inflight = false;
                n++;
                counted.incrementAndGet();
            }
        } catch (RuntimeException e) {
            // The node was killed under us: the INCR in flight may or may not have been applied.
        }
        return n;
    }

    /** The counter is the last acknowledged INCR's answer, or one more if an INCR was in flight. */
    private static void verifyCounter(int port, CounterLog log, String context) {
        if (log.wrongAnswer != null) {
            throw new AssertionError(context + ": " + log.wrongAnswer);
        }
        try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
            String got = j.get(COUNTER);
            long value = got == null ? 0 : Long.parseLong(got);
            if (!(value == log.acked || log.inflight && value == log.acked + 1)) {
                throw new AssertionError(context + ": counter " + value + ", last acknowledged " + log.acked
                        + (log.inflight ? " (one INCR in flight)" : ""));
            }
            log.acked = value;
            log.inflight = false;
        }
    }

    private static void verifyHash(int port, HashLog log, String context) {
        try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
            Map<String, String> all = j.hgetAll(HASH);
            assertEquals(all.size(), j.hlen(HASH), context + ": HLEN against the fields stored");
            Map<Integer, String> present = new HashMap<>();
            for (int g = 0; g < HASH_GROUPS; g++) {
                String a = all.get("g" + g + ":a");
                String b = all.get("g" + g + ":b");
                String c = all.get("g" + g + ":c");
                assertTrue(java.util.Objects.equals(a, b) && java.util.Objects.equals(b, c),
                        context + ": group " + g + " half written: " + a + ", " + b + ", " + c);
                if (a != null) {
                    present.put(g, a);
                }
            }
            assertEquals(present.size() * 3, all.size(), context + ": fields outside the groups: " + all.keySet());
            int inflight = log.inflightGroup;
            for (int g = 0; g < HASH_GROUPS; g++) {
                String want = log.acked.get(g);
                String got = present.get(g);
                if (g == inflight && log.inflightValue.equals(got)) {
                    log.acked.put(g, got); // the HSET in flight was applied before the kill
                    continue;
                }
                assertEquals(want, got, context + ": group " + g);
            }
            log.inflightGroup = -1;
        }
    }

    private static void verify(int port, ClientLog[] logs, String context) {
        try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
            for (ClientLog log : logs) {
                for (Map.Entry<String, String> e : log.acked.entrySet()) {
                    String got = j.get(e.getKey());
                    if (e.getKey().equals(log.inflightKey) && log.inflightValue.equals(got)) {
                        // The unacknowledged SET in flight was applied before the kill: fine.
                        log.acked.put(e.getKey(), got);
                        continue;
                    }
                    assertEquals(e.getValue(), got, context + ": key " + e.getKey());
                }
                if (log.inflightKey != null) {
                    String got = j.get(log.inflightKey);
                    if (log.inflightValue.equals(got)) {
                        log.acked.put(log.inflightKey, got);
                    }
                    log.inflightKey = null;
                }
            }
        }
    }

    private static Process startNode(Path dir) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), StrataServer.class.getName(),
                "--dir", dir.resolve("data").toString(), "--port", "0", "--command-threads", "8", "--warm-up-seconds", "0");
        pb.redirectErrorStream(true);
        return pb.start();
    }

    /** Reads the child's output until its ready line, and returns the port from it. */
    private static int awaitReady(Process node) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.startsWith(StrataServer.READY)) {
                int colon = line.indexOf(':', line.indexOf("listening on ") + 13);
                int end = line.indexOf(' ', colon);
                int port = Integer.parseInt(line.substring(colon + 1, end));
                // Keep draining its output so the child never blocks on a full pipe.
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // discard
                        }
                    } catch (IOException ignored) {
                        // gone
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return port;
            }
        }
        throw new AssertionError("the node exited before it was ready:\n" + seen);
    }
}
