package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;
import dev.strata.lsm.testkit.SlowTest;

/**
 * SIGKILLs a child JVM ingesting rounds of table files ({@link IngestKillChild}) while an
 * ingest call runs (the kill lands at a random point of its measured duration: validation,
 * flush, the copy into store tables, the version edit, the deletion of the files) and checks
 * after every kill that the store holds exactly one round's data: the last acknowledged one
 * or the one in flight, never a mix (an ingest is all or nothing), with the put after it
 * exactly when acknowledged; the next child's ingests must shadow the recovered ones (the
 * sequence numbers go on above the ingested ones). With column families the ingest goes into
 * family {@code a} while the default family's writes sit in the shared WAL.
 *
 * <p>The fast lane kills 2 times per variant; IngestKillTest at multiplier 3 {@code 3 *
 * strata.test.multiplier} times with larger rounds. Replay with {@code -Dstrata.test.seed=N}.
 */
@DisabledOnOs(OS.WINDOWS)
@SlowTest
class IngestKillTest {
    @TempDir
    Path tmp;

    @Test
    void aKilledIngestIsAllOrNothing() throws Exception {
        run(false);
    }

    @Test
    void aKilledIngestIntoAColumnFamilyIsAllOrNothing() throws Exception {
        run(true);
    }

    /** Where the store stands: the round whose content it holds (-1: none) and whether that round's put is in. */
    private record State(int round, boolean put) {
    }

    private void run(boolean families) throws Exception {
        long seed = TestSeed.orDefault(System.nanoTime());
        Random rnd = new Random(seed);
        String replay = "seed " + seed + (families ? ", families" : "");
        int keys = TestScale.scaled(6_000);
        int kills = TestScale.multiplier() > 1 ? 3 * TestScale.multiplier() : 2;
        Path dir = tmp.resolve("store");
        Path files = tmp.resolve("files");
        State state = new State(-1, false);
        int nextRound = 0;
        int inFlightApplied = 0;
        int inFlightNot = 0;
        List<Integer> announced = new ArrayList<>();
        for (int kill = 0; kill < kills; kill++) {
            String what = replay + ", kill " + kill;
            List<String> lines;
            try (KilledChild child = KilledChild.start(IngestKillChild.class, tmp.resolve("child-" + kill + ".err"),
                    dir.toString(), files.toString(), families ? "family" : "default", Integer.toString(nextRound),
                    Integer.toString(keys))) {
                int at = child.await(0, l -> l.startsWith("A "), 60_000, "a first acknowledged ingest");
                long ingestMs = Long.parseLong(child.lines().get(at).split(" ")[2]);
                at = child.await(at + 1, l -> l.startsWith("I "), 60_000, "a second ingest");
                Thread.sleep(rnd.nextInt((int) (ingestMs * 13 / 10) + 3));
                lines = child.kill();
            }
            int lastI = last(lines, "I");
            int lastA = last(lines, "A");
            int lastV = last(lines, "V");
            int lastW = last(lines, "W");
            // The last round surely complete, and its put: acknowledged, in flight, or from an earlier child.
            State done;
            boolean putEither;
            if (lastA >= 0) {
                done = new State(lastA, lastW >= lastA);
                putEither = lastV >= lastA && lastW < lastA;
            } else {
                done = state;
                putEither = false;
            }
            List<State> allowed = new ArrayList<>();
            allowed.add(done);
            if (putEither) {
                allowed.add(new State(done.round(), !done.put()));
            }
            if (lastI > lastA) {
                allowed.add(new State(lastI, false));
            }
            if (families) {
                for (String l : lines) {
                    if (l.startsWith("I ")) {
                        announced.add(Integer.parseInt(l.split(" ")[1]));
                    }
                }
            }
            State found = verify(dir, families, keys, allowed, announced, what);
            if (lastI > lastA) {
                if (found.round() == lastI) {
                    inFlightApplied++;
                } else {
                    inFlightNot++;
                }
            }
            state = found;
            nextRound = Math.max(lastI, state.round()) + 1;
        }
        // Writes after the recovered ingests are newer than them.
        try (LsmStore store = LsmStore.open(dir, IngestKillChild.config(families))) {
            ColumnFamily target = families ? store.columnFamily("a") : store.defaultColumnFamily();
            byte[] k = IngestKillChild.key(1);
            store.put(target, k, "parent".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals("parent".getBytes(StandardCharsets.US_ASCII), store.get(target, k), replay
                    + ": a put after the recovered ingests is hidden under them");
        }
        System.out.printf("ingest kills (%s): %d, in-flight ingest applied %d, not applied %d%n", replay, kills,
                inFlightApplied, inFlightNot);
    }

    private static int last(List<String> lines, String tag) {
        int last = -1;
        for (String l : lines) {
            if (l.startsWith(tag + " ")) {
                last = Integer.parseInt(l.split(" ")[1]);
            }
        }
        return last;
    }

    /** Opens the store and returns which of the {@code allowed} states it holds, failing if none. */
    private static State verify(Path dir, boolean families, int keys, List<State> allowed, List<Integer> announced,
            String what) {
        try (LsmStore store = LsmStore.open(dir, IngestKillChild.config(families))) {
            ColumnFamily target = families ? store.columnFamily("a") : store.defaultColumnFamily();
            List<String> found = new ArrayList<>();
            try (Cursor c = store.scan(target, IngestKillChild.key(0), IngestKillChild.key(keys))) {
                while (c.next()) {
                    found.add(text(c.key()) + "=" + text(c.value()));
                }
            }
            for (State s : allowed) {
                if (found.equals(expected(s, keys))) {
                    for (int r : announced) {
                        assertArrayEquals(IngestKillChild.putValue(r), store.get(IngestKillChild.defaultKey(r)), what
                                + ": the default family lost the put acknowledged before ingest " + r);
                    }
                    return s;
                }
            }
            describeMismatch(found, allowed, keys, what);
            throw new AssertionError("unreachable");
        }
    }

    private static List<String> expected(State s, int keys) {
        List<String> out = new ArrayList<>();
        if (s.round() < 0) {
            return out;
        }
        for (int i = 0; i < keys; i++) {
            byte[] v = IngestKillChild.content(s.round(), i);
            if (s.put() && i == s.round() % keys) {
                v = IngestKillChild.putValue(s.round());
            }
            if (v != null) {
                out.add(text(IngestKillChild.key(i)) + "=" + text(v));
            }
        }
        return out;
    }

    private static void describeMismatch(List<String> found, List<State> allowed, int keys, String what) {
        StringBuilder sb = new StringBuilder(what + ": the store holds none of the states " + allowed + " (" + found.size()
                + " keys)");
        for (State s : allowed) {
            List<String> e = expected(s, keys);
            int i = 0;
            while (i < e.size() && i < found.size() && e.get(i).equals(found.get(i))) {
                i++;
            }
            sb.append("; against ").append(s).append(" (").append(e.size()).append(" keys) first difference at ")
                    .append(i).append(": expected ").append(i < e.size() ? abbreviate(e.get(i)) : "end").append(", found ")
                    .append(i < found.size() ? abbreviate(found.get(i)) : "end");
        }
        fail(sb.toString());
    }

    private static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }
}
