package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * SIGKILLs a child JVM writing cross-family batches ({@link FamilyCrashWriter}) and checks
 * after each kill that every family recovers exactly: each acknowledged batch is in all three
 * families (with family {@code b}'s deletes applied), the one batch in flight is in all of
 * them or in none, and no later key exists — while the families flush at different times,
 * so their WAL replay points differ.
 */
@DisabledOnOs(OS.WINDOWS)
class FamilyKillTest {
    private static final int SIGKILL_EXIT = 128 + 9;

    @TempDir
    Path tmp;

    @Test
    void everyFamilyRecoversExactlyTheAcknowledgedBatches() throws Exception {
        long seed = TestSeed.orDefault(System.nanoTime());
        Random rnd = new Random(seed);
        Path dir = tmp.resolve("store");
        long next = 1;
        for (int round = 0; round < 2; round++) {
            long t0 = System.nanoTime();
            long[] acked = runAndKill(dir, next, 100 + rnd.nextInt(300), "round " + round);
            long lastAcked = acked[0];
            long announced = acked[1];
            assertTrue(lastAcked >= next, "round " + round + ": the child acknowledged no batch");
            long t1 = System.nanoTime();
            next = verify(dir, lastAcked, announced) + 1;
            System.out.printf("round %d: %d batches acknowledged, child %d ms, verify %d ms%n", round, lastAcked,
                    (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
        }
    }

    /**
     * WAL mode none: nothing but flushes makes a batch durable, and each family flushes at its
     * own memtable size, so without atomic flush a kill kept one family's part of a batch and
     * lost another's. After each kill every family must hold the same prefix of the batches —
     * at least those the last completed {@code flushColumnFamily} covered.
     */
    @Test
    void withoutAWalEveryFamilyHoldsTheSamePrefixOfTheBatches() throws Exception {
        long seed = TestSeed.orDefault(System.nanoTime());
        Random rnd = new Random(seed);
        Path dir = tmp.resolve("store-none");
        long next = 1;
        for (int round = 0; round < 2; round++) {
            long[] acked = runAndKill(dir, next, 100 + rnd.nextInt(300), "round " + round, 45, "NONE");
            long flushedBefore = (acked[0] - 1) / 40 * 40; // the child flushed after every 40th batch before its last ack
            long last;
            try (LsmStore store = LsmStore.open(dir, FamilyCrashWriter.config(dev.strata.lsm.WalSyncMode.NONE))) {
                last = next - 1;
                while (store.get(FamilyCrashWriter.key(last + 1)) != null) {
                    last++;
                }
            }
            assertTrue(last >= flushedBefore, "round " + round + ": the batches up to " + flushedBefore
                    + " were flushed before the kill, the store holds them up to " + last);
            verify(dir, last, last, dev.strata.lsm.WalSyncMode.NONE);
            System.out.printf("round %d (WAL none): %d batches acknowledged, %d in every family%n", round, acked[0],
                    last);
            next = last + 1;
        }
    }

    /** Checks the store; returns the last id in it (the last acknowledged or the in-flight one). */
    private static long verify(Path dir, long lastAcked, long announced) {
        return verify(dir, lastAcked, announced, dev.strata.lsm.WalSyncMode.ASYNC);
    }

    private static long verify(Path dir, long lastAcked, long announced, dev.strata.lsm.WalSyncMode mode) {
        try (LsmStore store = LsmStore.open(dir, FamilyCrashWriter.config(mode))) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily b = store.columnFamily("b");
            long last = lastAcked;
            if (announced > lastAcked) {
                boolean applied = store.get(FamilyCrashWriter.key(announced)) != null;
                assertEquals(applied, store.get(a, FamilyCrashWriter.key(announced)) != null,
                        "in-flight batch " + announced + " half applied (default vs a)");
                assertEquals(applied, store.get(b, FamilyCrashWriter.key(announced)) != null,
                        "in-flight batch " + announced + " half applied (default vs b)");
                if (applied) {
                    last = announced;
                }
            }
            java.util.List<String> expectDefault = new java.util.ArrayList<>();
            java.util.List<String> expectA = new java.util.ArrayList<>();
            java.util.List<String> expectB = new java.util.ArrayList<>();
            for (long id = 1; id <= last; id++) {
                String k = new String(FamilyCrashWriter.key(id), StandardCharsets.US_ASCII);
                expectDefault.add(k + "=" + new String(FamilyCrashWriter.value(id, "default"), StandardCharsets.US_ASCII));
                expectA.add(k + "=" + new String(FamilyCrashWriter.value(id, "a"), StandardCharsets.US_ASCII));
                if (!((id + 3) % 7 == 0 && id + 3 <= last)) {
                    expectB.add(k + "=" + new String(FamilyCrashWriter.value(id, "b"), StandardCharsets.US_ASCII));
                }
            }
            assertEquals(expectDefault, entries(store.scan(null, null)), "default family after the kill");
            assertEquals(expectA, entries(store.scan(a, null, null)), "family a after the kill");
            assertEquals(expectB, entries(store.scan(b, null, null)), "family b after the kill");
            return last;
        }
    }

    private static java.util.List<String> entries(dev.strata.lsm.Cursor c) {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (c) {
            while (c.next()) {
                out.add(new String(c.key(), StandardCharsets.US_ASCII) + "=" + new String(c.value(), StandardCharsets.US_ASCII));
            }
        }
        return out;
    }

    /**
     * Runs the child (in WAL mode {@code walMode}) until {@code delayMs} after its {@code
     * minAcks}th acknowledgement and kills it; returns {last acked, last announced}.
     */
    private long[] runAndKill(Path dir, long firstId, long delayMs, String what) throws Exception {
        return runAndKill(dir, firstId, delayMs, what, 5, "ASYNC");
    }

    private long[] runAndKill(Path dir, long firstId, long delayMs, String what, int minAcks, String walMode)
            throws Exception {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path stderr = tmp.resolve("child-" + firstId + ".err");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), FamilyCrashWriter.class.getName(),
                dir.toString(), Long.toString(firstId), walMode);
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        AtomicLong acked = new AtomicLong(firstId - 1);
        AtomicLong announced = new AtomicLong(firstId - 1);
        AtomicBoolean eof = new AtomicBoolean();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.US_ASCII))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("A ")) {
                        acked.set(Long.parseLong(line.substring(2)));
                    } else if (line.startsWith("B ")) {
                        announced.set(Long.parseLong(line.substring(2)));
                    }
                }
            } catch (Exception e) {
                // the kill ends the stream
            } finally {
                eof.set(true);
            }
        }, "family-crash-child-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            p.getOutputStream().close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (acked.get() < firstId + minAcks) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    fail(what + ": the child acknowledged only " + (acked.get() - firstId + 1) + " batches; stderr:\n"
                            + Files.readString(stderr));
                }
                Thread.sleep(5);
            }
            Thread.sleep(delayMs);
            assertTrue(p.isAlive(), what + ": the child died on its own; stderr:\n" + Files.readString(stderr));
            assertTrue(p.toHandle().destroyForcibly(), what + ": could not SIGKILL the child");
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(SIGKILL_EXIT, p.exitValue(), what + ": the child was not killed by us");
            reader.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(eof.get(), what + ": the child's stdout did not end");
            return new long[] {acked.get(), announced.get()};
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
