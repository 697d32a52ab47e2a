package dev.strata.lsm.crash;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kills a writing process with SIGKILL over and over on the same store directory and
 * checks after every kill that the store recovers to exactly what was acknowledged.
 *
 * <p>Each round starts {@link CrashWriter} in a fresh JVM, continuing with the write ids
 * after the previous round's, lets it write for a random 50–800 ms once it has
 * acknowledged a few writes, and kills it (some extra rounds are killed right after the
 * child starts, so kills also land in recovery). The parent replays the child's
 * announced and acknowledged writes of {@link CrashWorkload} (puts, deletes, range deletes and
 * batches of them) on a {@link TreeMap} model,
 * opens the store itself, and requires a full scan to equal the model either without or
 * with the one in-flight write (applied entirely or not at all, never in part), every
 * {@code get} to agree with the scan, and no key of a never-announced write to exist.
 * Whichever way the in-flight write went becomes part of the model for the next round.
 *
 * <p>Replay a run with {@code -Dstrata.test.seed=N}; the seed fixes the workload and
 * the kill delays, though where a kill lands still depends on timing. The fast lane kills
 * 4 times; the slow lane ({@link CrashRecoverySlowTest}) {@code 4 * strata.test.multiplier} times.
 */
// ProcessHandle.destroyForcibly is SIGKILL only on Unix-like systems; the exit status check relies on it.
@DisabledOnOs(OS.WINDOWS)
class CrashRecoveryTest {
    private static final Comparator<byte[]> KEYS = Arrays::compareUnsigned;
    /** Acknowledged writes to wait for before the kill timer starts. */
    private static final int MIN_ACKS = 5;
    private static final long CHILD_START_TIMEOUT_MS = 90_000;   // only reached by a child that does not start: a starved CI box took over 30 s
    /** Exit status of a process killed by SIGKILL, as Process reports it. */
    private static final int SIGKILL_EXIT = 128 + 9;

    @TempDir
    Path tmp;

    /** Totals printed at the end, so a CI log shows how much the run exercised. */
    private long ackedChecked;
    private int inFlightApplied;
    private int inFlightNotApplied;
    private int inFlightEither;

    @Test
    void acknowledgedWritesSurviveKills() throws Exception {
        long seed = TestSeed.orDefault(System.nanoTime());
        int kills = TestScale.scaled(4);
        StoreConfig config = CrashWorkload.config(seed);
        System.out.println("CrashRecoveryTest seed=" + seed + " kills=" + kills + " (replay with -Dstrata.test.seed="
                + seed + ")  " + config);
        long t0 = System.nanoTime();
        CrashWorkload workload = new CrashWorkload(seed);
        // Separate streams: what the range checks draw depends on the model's size, which
        // depends on timing, and must not shift the kill schedule the seed fixes.
        Random rnd = new Random(seed);
        Random scanRnd = new Random(~seed);
        Path dir = tmp.resolve("store");
        NavigableMap<byte[], byte[]> model = new TreeMap<>(KEYS);
        long nextId = 0;
        int killed = 0;
        int round = 0;
        while (killed < kills) {
            // About one round in six is an extra early kill: it lands while the child
            // starts up, opens and recovers the store, instead of in steady writing.
            boolean early = rnd.nextInt(6) == 0;
            long delayMs = early ? rnd.nextInt(250) : 50 + rnd.nextInt(751);
            String what = "seed " + seed + " round " + round + (early ? " (early kill)" : "") + ", first id " + nextId;
            RunLog log = runAndKill(dir, nextId, seed, early, delayMs, tmp.resolve("child-" + round + ".err"), what);
            long lastAcked = log.lastAcked();
            long lastAnnounced = log.lastAnnounced();
            System.out.printf("  round %d%s: ran %d ms, ids %d..%d announced, acked through %d%n", round,
                    early ? " (early)" : "", log.ranMillis, nextId, lastAnnounced, lastAcked);
            // Replay the acknowledged writes on the model; remember the keys they touched
            // so get() is also asked about keys that must be absent.
            Set<byte[]> touched = new TreeSet<>(KEYS);
            for (long id = nextId; id <= lastAcked; id++) {
                CrashWorkload.Write w = workload.plan(id);
                w.applyTo(model);
                w.ops().forEach(op -> touched.add(op.key()));
            }
            ackedChecked += Math.max(0, lastAcked - nextId + 1);
            CrashWorkload.Write inFlight = lastAnnounced > lastAcked ? workload.plan(lastAnnounced) : null;
            model = verify(dir, config, workload, model, inFlight, touched, lastAnnounced + 1, scanRnd, what);
            nextId = lastAnnounced + 1;
            if (!early) {
                killed++;
            }
            round++;
        }
        // The last verification closed the store cleanly; reopening must give the same state.
        verify(dir, config, workload, model, null, Set.of(), nextId, scanRnd, "seed " + seed + " reopen after clean close");
        try (LsmStore store = LsmStore.open(dir, config)) {
            System.out.printf("CrashRecoveryTest seed=%d: %d kills (%d rounds), %d acknowledged writes checked, "
                            + "in-flight write applied %d / not applied %d / no-op %d, %d live keys, %d s; %s%n",
                    seed, killed, round, ackedChecked, inFlightApplied, inFlightNotApplied, inFlightEither,
                    model.size(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), store.stats());
        }
    }

    // ------------------------------------------------------------------ the child

    /**
     * Starts a child writing from {@code firstId}, kills it with SIGKILL after
     * {@code delayMs} (counted from its first few acknowledgements, or from its start when
     * {@code early}), and returns what it printed. The child never outlives this call.
     */
    private RunLog runAndKill(Path dir, long firstId, long seed, boolean early, long delayMs, Path stderr, String what)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), CrashWriter.class.getName(),
                dir.toString(), Long.toString(firstId), Long.toString(seed));
        pb.redirectError(stderr.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.PIPE);
        RunLog log = new RunLog(firstId);
        Process p = pb.start();
        Thread reader = null;
        try {
            p.getOutputStream().close();
            reader = new Thread(() -> log.read(p.getInputStream()), "crash-child-stdout");
            reader.setDaemon(true);
            reader.start();
            boolean ready = early ? log.awaitStarted(CHILD_START_TIMEOUT_MS) : log.awaitAcks(MIN_ACKS, CHILD_START_TIMEOUT_MS);
            long start = System.nanoTime();
            if (!ready) {
                // A live child that stops acknowledging has stalled writes (e.g. the merge
                // policy's admission stays STOP because merges keep being rejected).
                fail(what + ": the child " + (p.isAlive() ? "acknowledged only " + (log.lastAcked() - firstId + 1)
                        + " writes in " + CHILD_START_TIMEOUT_MS + " ms (startup or writes stalled)"
                        : "exited with status " + p.exitValue()) + childOutput(log, stderr));
            }
            Thread.sleep(delayMs);
            if (!p.isAlive()) {
                fail(what + ": the child died on its own with status " + p.exitValue() + childOutput(log, stderr));
            }
            // SIGKILL through the ProcessHandle, not Process.destroyForcibly(): on Linux the
            // latter also closes our end of the child's stdout, discarding lines still in
            // the pipe, and the reader may lag the child by several writes. Losing them
            // would make writes the child did announce look never-announced.
            assertTrue(p.toHandle().destroyForcibly(), what + ": could not send SIGKILL to the child");
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), what + ": the child did not die after SIGKILL");
            log.ranMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // Between isAlive and the kill the child might still have exited by itself.
            assertEquals(SIGKILL_EXIT, p.exitValue(), what + ": the child was not killed by us" + childOutput(log, stderr));
            reader.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(reader.isAlive(), what + ": the child's stdout did not reach end of stream");
            if (log.readError != null) {
                throw new AssertionError(what + ": reading the child's stdout failed", log.readError);
            }
            if (log.protocolError != null) {
                fail(what + ": " + log.protocolError + childOutput(log, stderr));
            }
            // The engine logs at ERROR (JUL's SEVERE) only for broken invariants, such as
            // merges or flush placements it had to reject; a healthy child logs none.
            if (Files.readString(stderr, StandardCharsets.UTF_8).contains("SEVERE")) {
                fail(what + ": the child's engine reported errors" + childOutput(log, stderr));
            }
            return log;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
            // Normally the reader already hit end of stream; on a failure path this unblocks it.
            p.getInputStream().close();
            if (reader != null) {
                reader.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
    }

    private static String childOutput(RunLog log, Path stderr) {
        String err;
        try {
            err = Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            err = "(cannot read " + stderr + ": " + e + ")";
        }
        if (err.length() > 8000) {
            err = "..." + err.substring(err.length() - 8000);
        }
        return "\n  child stdout: started=" + log.started + " open=" + log.opened + " last announced="
                + log.lastAnnounced() + " last acked=" + log.lastAcked() + "\n  child stderr:\n" + err;
    }

    /**
     * What one child printed, parsed by the reader thread as it arrives. Only complete
     * lines count: a line cut by the kill carries no information the parent relies on,
     * because the child writes the whole line before it starts (or after it finished) the
     * store call it describes.
     */
    private static final class RunLog {
        private final long firstId;
        private boolean started;
        private boolean opened;
        private long announced;
        private long acked;
        private boolean ended;
        volatile String protocolError;
        volatile IOException readError;
        volatile long ranMillis;

        RunLog(long firstId) {
            this.firstId = firstId;
            this.announced = firstId - 1;
            this.acked = firstId - 1;
        }

        synchronized long lastAnnounced() {
            return announced;
        }

        synchronized long lastAcked() {
            return acked;
        }

        synchronized boolean awaitStarted(long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (!started && !ended && System.currentTimeMillis() < deadline) {
                wait(Math.max(1, deadline - System.currentTimeMillis()));
            }
            return started;
        }

        synchronized boolean awaitAcks(int n, long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (acked - firstId + 1 < n && !ended && System.currentTimeMillis() < deadline) {
                wait(Math.max(1, deadline - System.currentTimeMillis()));
            }
            return acked - firstId + 1 >= n;
        }

        void read(InputStream in) {
            byte[] buf = new byte[8192];
            StringBuilder line = new StringBuilder();
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    for (int i = 0; i < n; i++) {
                        char c = (char) (buf[i] & 0xFF);
                        if (c == '\n') {
                            line(line.toString());
                            line.setLength(0);
                        } else {
                            line.append(c);
                        }
                    }
                }
            } catch (IOException e) {
                // Lines may be missing: the parent must not trust this log.
                readError = e;
            } finally {
                synchronized (this) {
                    ended = true;
                    notifyAll();
                }
            }
        }

        private synchronized void line(String s) {
            if (protocolError != null) {
                return;
            }
            if (s.equals("S")) {
                started = true;
            } else if (s.equals("O")) {
                opened = true;
            } else if (s.startsWith("B ")) {
                long id = Long.parseLong(s.substring(2));
                if (!opened || id != announced + 1 || acked != announced) {
                    protocolError = "unexpected '" + s + "' after B " + announced + " / A " + acked;
                }
                announced = id;
            } else if (s.startsWith("A ")) {
                long id = Long.parseLong(s.substring(2));
                if (id != announced || acked != announced - 1) {
                    protocolError = "unexpected '" + s + "' after B " + announced + " / A " + acked;
                }
                acked = id;
            } else {
                protocolError = "unexpected line from the child: '" + s + "'";
            }
            notifyAll();
        }
    }

    // ------------------------------------------------------------------ verification

    /**
     * Opens the store after a kill and checks it against the model (without and with the
     * in-flight write). Returns the model the store turned out to match.
     */
    private NavigableMap<byte[], byte[]> verify(Path dir, StoreConfig config, CrashWorkload workload,
                                                NavigableMap<byte[], byte[]> without, CrashWorkload.Write inFlight,
                                                Set<byte[]> touched, long firstUnannounced, Random rnd, String what) {
        NavigableMap<byte[], byte[]> with = null;
        if (inFlight != null) {
            with = new TreeMap<>(without);
            inFlight.applyTo(with);
        }
        LsmStore store;
        try {
            // Recovery runs here: a corrupt WAL, manifest or table surfaces as an exception.
            store = LsmStore.open(dir, config);
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": opening the store after the kill failed: " + e, e);
        }
        try {
            NavigableMap<byte[], byte[]> actual = scan(store, null, null, what + ": full scan");
            boolean isWithout = sameEntries(actual, without);
            boolean isWith = with != null && sameEntries(actual, with);
            if (!isWithout && !isWith) {
                fail(what + ": the store does not hold what was acknowledged" + (inFlight == null ? ""
                        : " (with or without the in-flight write)") + "\n" + mismatch(actual, without, inFlight, with));
            }
            NavigableMap<byte[], byte[]> result = isWithout ? without : with;
            if (inFlight != null) {
                if (isWith && isWithout) {
                    inFlightEither++;
                } else if (isWith) {
                    inFlightApplied++;
                } else {
                    inFlightNotApplied++;
                }
            }

            // get() must agree with the scan on every live key ...
            for (Map.Entry<byte[], byte[]> e : actual.entrySet()) {
                assertArrayEquals(e.getValue(), store.get(e.getKey()),
                        () -> what + ": get disagrees with scan on " + CrashWorkload.describeKey(e.getKey()));
            }
            // ... and on keys that may be absent: deleted by this round, written by the
            // in-flight write, or belonging to writes that were never announced.
            Set<byte[]> probe = new TreeSet<>(KEYS);
            probe.addAll(touched);
            if (inFlight != null) {
                inFlight.ops().forEach(op -> probe.add(op.key()));
            }
            for (long id = firstUnannounced; id < firstUnannounced + 50; id++) {
                for (byte[] k : workload.freshKeys(id)) {
                    assertNull(store.get(k), what + ": key " + CrashWorkload.describeKey(k) + " of never-announced write "
                            + id + " exists");
                }
            }
            for (byte[] k : probe) {
                assertArrayEquals(actual.get(k), store.get(k),
                        () -> what + ": get disagrees with scan on " + CrashWorkload.describeKey(k));
            }
            // Bounded scans exercise seeks into every run; compare them with the model.
            List<byte[]> keys = new ArrayList<>(result.keySet());
            for (int i = 0; i < 8 && !keys.isEmpty(); i++) {
                byte[] from = rnd.nextInt(4) == 0 ? null : keys.get(rnd.nextInt(keys.size()));
                byte[] to = rnd.nextInt(4) == 0 ? null : keys.get(rnd.nextInt(keys.size()));
                if (from != null && to != null && KEYS.compare(from, to) > 0) {
                    byte[] t = from;
                    from = to;
                    to = t;
                }
                NavigableMap<byte[], byte[]> expected = from == null && to == null ? result
                        : from == null ? result.headMap(to, false)
                        : to == null ? result.tailMap(from, true)
                        : result.subMap(from, true, to, false);
                String range = what + ": scan [" + (from == null ? "-inf" : CrashWorkload.describeKey(from)) + ", "
                        + (to == null ? "+inf" : CrashWorkload.describeKey(to)) + ")";
                assertTrue(sameEntries(scan(store, from, to, range), expected), range + " differs from the model");
            }
            store.close();
            // Checked after close, which waits for the merges recovery started: components
            // replayed twice or placed out of sequence order show up as rejected placements
            // or merges.
            // (The engine's counter: a closed store's stats() throws StoreClosedException.)
            assertEquals(0, dev.strata.lsm.TestAccess.engine(store).policyErrors(), what + ": policy errors after recovery");
            return result;
        } finally {
            store.close();
        }
    }

    /** Every entry of a scan, checking that keys come strictly ascending. */
    private static NavigableMap<byte[], byte[]> scan(LsmStore store, byte[] from, byte[] to, String what) {
        NavigableMap<byte[], byte[]> out = new TreeMap<>(KEYS);
        byte[] previous = null;
        try (Cursor c = store.scan(from, to)) {
            while (c.next()) {
                byte[] k = c.key();
                if (previous != null && KEYS.compare(previous, k) >= 0) {
                    fail(what + ": key " + CrashWorkload.describeKey(k) + " after " + CrashWorkload.describeKey(previous));
                }
                out.put(k, c.value());
                previous = k;
            }
        }
        return out;
    }

    private static boolean sameEntries(NavigableMap<byte[], byte[]> a, NavigableMap<byte[], byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        Iterator<Map.Entry<byte[], byte[]>> ia = a.entrySet().iterator();
        Iterator<Map.Entry<byte[], byte[]>> ib = b.entrySet().iterator();
        while (ia.hasNext()) {
            Map.Entry<byte[], byte[]> x = ia.next();
            Map.Entry<byte[], byte[]> y = ib.next();
            if (!Arrays.equals(x.getKey(), y.getKey()) || !Arrays.equals(x.getValue(), y.getValue())) {
                return false;
            }
        }
        return true;
    }

    /**
     * A readable account of how the store differs from the model without the in-flight
     * write: lost, resurrected and wrong keys (values named by the write that made them),
     * and which ops of the in-flight write the store reflects.
     */
    private static String mismatch(NavigableMap<byte[], byte[]> actual, NavigableMap<byte[], byte[]> without,
                                   CrashWorkload.Write inFlight, NavigableMap<byte[], byte[]> with) {
        StringBuilder sb = new StringBuilder();
        sb.append("  store has ").append(actual.size()).append(" keys, model without in-flight ").append(without.size());
        if (with != null) {
            sb.append(", with ").append(with.size());
        }
        sb.append('\n');
        Set<byte[]> keys = new TreeSet<>(KEYS);
        keys.addAll(actual.keySet());
        keys.addAll(without.keySet());
        Set<String> lines = new LinkedHashSet<>();
        int shown = 0;
        int total = 0;
        for (byte[] k : keys) {
            byte[] a = actual.get(k);
            byte[] e = without.get(k);
            if (Arrays.equals(a, e)) {
                continue;
            }
            total++;
            if (shown++ < 25) {
                String kind = a == null ? "missing" : e == null ? "unexpected" : "wrong value";
                lines.add("  " + kind + " " + CrashWorkload.describeKey(k) + ": store " + CrashWorkload.describeValue(a)
                        + ", expected " + CrashWorkload.describeValue(e));
            }
        }
        lines.forEach(l -> sb.append(l).append('\n'));
        sb.append("  ").append(total).append(" keys differ from the model without the in-flight write\n");
        if (inFlight != null) {
            sb.append("  in-flight ").append(inFlight).append('\n');
            // Which ops the store reflects: a mix of yes and no means the batch was torn.
            NavigableMap<byte[], byte[]> probe = new TreeMap<>(without);
            Set<String> states = new HashSet<>();
            for (CrashWorkload.Op op : inFlight.ops()) {
                byte[] before = probe.get(op.key());
                if (op.isRangeDelete()) {
                    int gone = probe.subMap(op.key(), true, op.rangeEnd(), false).size();
                    probe.subMap(op.key(), true, op.rangeEnd(), false).clear();
                    int left = actual.subMap(op.key(), true, op.rangeEnd(), false).size();
                    sb.append("    delrange ").append(CrashWorkload.describeKey(op.key())).append("..")
                            .append(CrashWorkload.describeKey(op.rangeEnd())).append(": removes ").append(gone)
                            .append(" keys of the model; the store holds ").append(left).append(" there\n");
                    states.add(left == 0 ? (gone == 0 ? "no-op" : "applied") : "not applied");
                    continue;
                }
                if (op.isDelete()) {
                    probe.remove(op.key());
                } else {
                    probe.put(op.key(), op.value());
                }
                byte[] after = probe.get(op.key());
                byte[] a = actual.get(op.key());
                String state = Arrays.equals(before, after) ? "no-op"
                        : Arrays.equals(a, after) ? "applied" : Arrays.equals(a, before) ? "not applied" : "other";
                states.add(state);
                sb.append("    ").append(op.isDelete() ? "del " : "put ").append(CrashWorkload.describeKey(op.key()))
                        .append(": ").append(state).append('\n');
            }
            if (states.contains("applied") && states.contains("not applied")) {
                sb.append("  => the in-flight write was applied in part: the batch was torn\n");
            }
        }
        return sb.toString();
    }
}
