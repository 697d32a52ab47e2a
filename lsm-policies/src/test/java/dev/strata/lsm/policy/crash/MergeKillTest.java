package dev.strata.lsm.policy.crash;

import dev.strata.lsm.StoreListener;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * SIGKILL in the middle of one kind of merge (issue 12): Spooky's partitioned and dividing
 * merges (leveling), its bottom pass under tiering (the largest level's runs merged into a new
 * run of it) and its partitioned merges under lazy leveling, and vLSM's level-0 → level-1 vSST
 * merge. The child (the writer of
 * {@link PolicyKillTest}) reports on stdout when a merge starts and ends
 * ({@link StoreListener#mergeStarted}, {@link StoreListener#mergeEnded}), and holds a merge of
 * the wanted kind at one of its first 8 page writes (the seed picks which): it prints "P"
 * there and the merge goes no further, so the parent's kill lands inside that merge, with
 * part of its output written. A kill counts as landing in the merge when the child died with
 * it started and not ended. After each kill the store is checked as in {@link PolicyKillTest}
 * (every acknowledged write, no orphan file, no policy error); the test asks for
 * {@code strata.test.multiplier} kills inside the wanted kind of merge (one in the fast lane,
 * three in the slow lane, MergeKillTest at multiplier 3), within {@value #ATTEMPTS} children.
 * Replay with {@code -Dstrata.test.seed=N}.
 */
@DisabledOnOs(OS.WINDOWS)
@SlowTest
class MergeKillTest {
    private static final int WANTED = TestScale.scaled(1);
    private static final int ATTEMPTS = WANTED + 13;

    @TempDir
    Path dir;
    @TempDir
    Path logs;

    /**
     * In the child: counts the page writes of merges of the wanted kind (on the threads running
     * them, between {@link StoreListener#mergeStarted} and {@link StoreListener#mergeEnded}) and,
     * at the one {@code holdAt} picks, prints "P" and never returns.
     */
    static final class HoldingStorageIO extends ForwardingStorageIO {
        private final PrintStream out;
        private final AtomicLong left;
        private final Set<Thread> inWantedMerge = ConcurrentHashMap.newKeySet();

        HoldingStorageIO(long holdAt, PrintStream out) {
            super(new FileChannelStorageIO());
            this.out = out;
            this.left = new AtomicLong(holdAt);
        }

        @Override
        protected PageFile wrap(PageFile file) {
            if (file.purpose() != IoPurpose.MERGE) {
                return file;
            }
            return new ForwardingPageFile(file) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    maybeHold();
                    super.write(src, position);
                }

                @Override
                public long append(ByteBuffer src) throws IOException {
                    maybeHold();
                    return super.append(src);
                }
            };
        }

        private void maybeHold() {
            if (inWantedMerge.contains(Thread.currentThread()) && left.getAndDecrement() == 0) {
                out.println("P");
                while (true) {
                    LockSupport.park(this);
                }
            }
        }
    }

    /** The child: args = directory, policy, first id, kind, write to hold at; acknowledges each write, reports merges. */
    public static void main(String[] args) throws Exception {
        PrintStream out = PolicyKillTest.childOut();
        String kind = args[3];
        HoldingStorageIO io = new HoldingStorageIO(Long.parseLong(args[4]), out);
        StoreListener reporter = new StoreListener() {
            @Override
            public void mergeStarted(String reason) {
                out.println("S " + reason);
                if (reason.contains(kind)) {
                    io.inWantedMerge.add(Thread.currentThread());
                }
            }

            @Override
            public void mergeEnded(String reason, boolean installed) {
                io.inWantedMerge.remove(Thread.currentThread());
                out.println("E " + reason);
            }
        };
        PolicyKillTest.writeUntilKilled(args, out, PolicyKillTest.config(args[1]).toBuilder().listener(reporter)
                .storageIO(io).build());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"spooky, partitioned merge", "spooky, dividing merge", "spooky:tiering, with the runs of level",
            "spooky:lazy-leveling, partitioned merge", "vlsm, into level 1"})
    void killedInTheMiddleOfAMergeLosesNothing(String policy, String kind) throws Exception {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        String where = policy + " (" + kind + "), seed " + seed + " (replay with -Dstrata.test.seed=" + seed + ")";
        long next = 0;
        int landed = 0;
        List<String> misses = new ArrayList<>();
        for (int attempt = 0; attempt < ATTEMPTS && landed < WANTED; attempt++) {
            Path err = logs.resolve(policy + "-" + attempt + ".err");
            int holdAt = rnd.nextInt(8);
            Process p = PolicyKillTest.startChild(MergeKillTest.class, err, dir.toString(), policy,
                    Long.toString(next), kind, Integer.toString(holdAt));
            AtomicLong acked = new AtomicLong(next - 1);
            AtomicBoolean started = new AtomicBoolean();
            AtomicBoolean killed = new AtomicBoolean();
            AtomicBoolean held = new AtomicBoolean();
            int[] open = {0};
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.equals("started")) {
                            started.set(true);
                        } else if (line.startsWith("S ")) {
                            if (line.contains(kind)) {
                                synchronized (open) {
                                    open[0]++;
                                }
                            }
                        } else if (line.equals("P")) {
                            // A merge of the wanted kind is held at its chosen page write.
                            held.set(true);
                            if (!killed.getAndSet(true)) {
                                p.toHandle().destroyForcibly();
                            }
                        } else if (line.startsWith("E ")) {
                            if (line.contains(kind)) {
                                synchronized (open) {
                                    open[0]--;
                                }
                            }
                        } else {
                            acked.set(Long.parseLong(line));
                        }
                    }
                } catch (IOException | NumberFormatException ignored) {
                    // The child died mid-line.
                }
            });
            reader.start();
            // A child that never starts the wanted merge within 60 s is killed anyway (and checked; 20 s was too short for a child JVM to start on a machine at load 24).
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                killed.set(true);
                p.toHandle().destroyForcibly();
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }
            reader.join(30_000);
            String log = Files.readString(err);
            assertTrue(started.get(), where + ": child " + attempt + " started\n" + log);
            assertTrue(!log.contains("SEVERE") && !log.contains("Exception"), where + ": child " + attempt
                    + " reported errors:\n" + log);
            boolean inMerge;
            synchronized (open) {
                inMerge = open[0] > 0;
            }
            if (inMerge) {
                landed++;
            } else {
                misses.add(held.get() ? "held at write " + holdAt + ", but the merge had ended"
                        : "no merge of the kind held in 60 s");
            }
            next = PolicyKillTest.verifyAfterKill(dir, acked.get(), where + ", child " + attempt) + 1;
        }
        System.out.printf("MergeKillTest %s, %s: %d kills inside the merge; kills outside it: %s; seed %d%n", policy,
                kind, landed, misses, seed);
        assertTrue(landed >= WANTED, where + ": only " + landed + " of " + ATTEMPTS + " kills landed inside a merge; "
                + "the others: " + misses);
    }
}
