package dev.strata.lsm.crash;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import dev.strata.lsm.testkit.SlowTest;

/**
 * A reader in this JVM ({@link LsmStore#openReadOnly}) refreshes in a loop beside a writer in
 * a child JVM ({@link ReaderTortureWriter}) that flushes, merges and deletes files all the
 * time and is SIGKILLed and restarted (its recovery rewriting the manifest and deleting
 * files while the reader stages them). Every refresh must succeed — never a
 * {@link CorruptionException}, never a failure over a file the writer deleted — and show a
 * committed state: per writer thread a counter {@code n} with exactly the batches {@code 1..n}
 * (each batch whole), never below what an earlier refresh showed, and after a kill at least
 * what the killed writer had acknowledged.
 *
 * <p>The fast lane kills the writer 2 times after runs of 0.7-1.4 s; ReaderTortureTest at multiplier 3
 * {@code 3 * strata.test.multiplier} times, after runs of 1.2-2.4 s times the multiplier.
 */
@DisabledOnOs(OS.WINDOWS)
@SlowTest
class ReaderTortureTest {
    @TempDir
    Path tmp;

    @Test
    void everyRefreshSeesACommittedPrefixWhileTheWriterIsKilledAndRestarted() throws Exception {
        long seed = TestSeed.orDefault(System.nanoTime());
        Random rnd = new Random(seed);
        // The fast lane: 2 writer runs of 0.7-1.4 s (the reader refreshes all along, and the child
        // writes on several threads: the class cost 10 s with 3 runs of 1.2-2.4 s). The slow lane:
        // 3 * multiplier runs of 1.2-2.4 s times the multiplier.
        boolean full = TestScale.multiplier() > 1;
        int kills = full ? 3 * TestScale.multiplier() : 2;
        long runMs = full ? TestScale.scaled(1200L) : 700L;
        Path dir = tmp.resolve("store");
        long[] seen = new long[ReaderTortureWriter.THREADS];
        long[] acked = new long[ReaderTortureWriter.THREADS];
        int refreshes = 0;
        LsmStore reader = null;
        try {
            for (int kill = 0; kill < kills; kill++) {
                String what = "seed " + seed + ", writer run " + kill;
                try (KilledChild child = KilledChild.start(ReaderTortureWriter.class, tmp.resolve("writer-" + kill + ".err"),
                        dir.toString())) {
                    child.await(0, l -> l.equals("O"), 60_000, "the writer's open");
                    if (reader == null) {
                        reader = LsmStore.openReadOnly(dir, ReaderTortureWriter.config());
                    }
                    long end = System.nanoTime() + (runMs + rnd.nextInt((int) runMs)) * 1_000_000L;
                    while (System.nanoTime() < end) {
                        refresh(reader, what);
                        refreshes++;
                        check(reader, seen, what + ", refresh " + refreshes);
                    }
                    List<String> lines = child.kill();
                    for (String l : lines) {
                        if (l.startsWith("A ")) {
                            String[] w = l.split(" ");
                            int t = Integer.parseInt(w[1]);
                            acked[t] = Math.max(acked[t], Long.parseLong(w[2]));
                        }
                    }
                }
                // The killed writer's acknowledged batches are in the OS: the next refresh sees them.
                refresh(reader, what + ", after the kill");
                refreshes++;
                check(reader, seen, what + ", after the kill");
                for (int t = 0; t < seen.length; t++) {
                    assertTrue(seen[t] >= acked[t], what + ": thread " + t + " had " + acked[t]
                            + " batches acknowledged, a refresh after the kill sees " + seen[t]);
                }
            }
        } finally {
            if (reader != null) {
                reader.close();
            }
        }
        try (Stream<Path> s = Files.list(tmp)) {
            assertEquals(List.of(), s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".store.reader-"))
                    .toList(), "the reader left staging directories");
        }
        System.out.printf("reader torture (seed %d): %d refreshes over %d writer kills, batches seen %s%n", seed,
                refreshes, kills, Arrays.toString(seen));
    }

    private static void refresh(LsmStore reader, String what) {
        try {
            reader.refresh();
        } catch (CorruptionException e) {
            throw new AssertionError(what + ": refresh reported corruption beside a live writer", e);
        }
    }

    /** Per thread: a counter n, exactly the batches 1..n, n never below the last refresh's. */
    private static void check(LsmStore reader, long[] seen, String what) {
        try (var snapshot = reader.snapshot()) {
            for (int t = 0; t < seen.length; t++) {
                long n = ReaderTortureWriter.counterOf(snapshot.get(ReaderTortureWriter.counterKey(t)));
                if (n < seen[t]) {
                    fail(what + ": thread " + t + "'s counter went back from " + seen[t] + " to " + n);
                }
                long count = 0;
                try (Cursor c = snapshot.scan(ReaderTortureWriter.logKey(t, 0), ReaderTortureWriter.logPrefixEnd(t))) {
                    while (c.next()) {
                        count++;
                        if (!Arrays.equals(ReaderTortureWriter.logKey(t, count), c.key())) {
                            fail(what + ": thread " + t + " misses batch " + count + " (found "
                                    + new String(c.key()) + ") under counter " + n);
                        }
                        assertArrayEquals(ReaderTortureWriter.logValue(t, count), c.value(), what);
                    }
                }
                assertEquals(n, count, what + ": thread " + t + "'s counter says " + n + " batches, the log holds "
                        + count + " (a batch seen in part)");
                seen[t] = n;
            }
        }
    }
}
