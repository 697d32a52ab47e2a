package dev.strata.lsm.bench;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.bench.torture.ExpectedState;
import dev.strata.lsm.bench.torture.TortureValues;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TortureCommandTest {

    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    private static int execute(TortureCommand command, String... args) {
        return new CommandLine(command).execute(args);
    }

    private static long figure(String summary, String regex) {
        Matcher m = Pattern.compile(regex).matcher(summary);
        assertTrue(m.find(), "no '" + regex + "' in:\n" + summary);
        return Long.parseLong(m.group(1));
    }

    @Test
    void aShortRunKillsTheChildAndVerifiesEveryAcknowledgedWrite(@TempDir Path tmp) {
        // 3.6 s with a kill every 1.2 s or so in the fast lane, 10.8 s in the slow lane
        // (TortureCommandSlowTest).
        String minutes = Double.toString(TestScale.scaled(0.06));
        int code = execute(new TortureCommand(), "--minutes", minutes, "--kill-interval", "1.2", "--keys", "3000",
                "--seed", "7", "--fault-rate", "0.003", "--dir", tmp.resolve("run").toString(), "--no-progress");
        String out = streams.out();
        assertEquals(0, code, out + "\n" + streams.err());
        assertTrue(figure(out, "kills (\\d+)") > 0, out);
        assertTrue(figure(out, "verified keys (\\d+)") >= 3000, out);
        assertEquals(0, figure(out, "losses (\\d+)"), out);
        assertTrue(figure(out, "clean closes (\\d+)") >= 1, "the last epoch ends in a clean close, verified: " + out);
    }

    @Test
    void aLostAcknowledgedWriteIsReportedAndFailsTheRun(@TempDir Path tmp) {
        assertALostAcknowledgedWriteFailsTheRun(tmp, "2");
    }

    /**
     * A kill interval far shorter than a JVM's start, as a loaded machine makes the 2 s above
     * (load average 10: 80 epochs in 5 minutes, every child killed before it had opened the
     * store, ops 0, "no acknowledged put to lose"). After a child killed unopened, the next
     * one's kill counts from its open store, so children still write and the loss is found.
     */
    @Test
    void aLostAcknowledgedWriteIsFoundWhenChildrenStartSlowerThanTheKillInterval(@TempDir Path tmp) {
        assertALostAcknowledgedWriteFailsTheRun(tmp, "0.005");
    }

    private void assertALostAcknowledgedWriteFailsTheRun(Path tmp, String killInterval) {
        TortureCommand command = new TortureCommand();
        AtomicInteger sabotaged = new AtomicInteger(-1);
        command.beforeVerify = (storeDir, state, epoch) -> {
            if (sabotaged.get() >= 0) {
                return;
            }
            // Lose one acknowledged put behind the verifier's back, as a faulty engine would.
            ExpectedState.Batch batch = state.lastBatch();
            for (int k = 0; k < state.keys(); k++) {
                long stable = state.stable(k);
                int key = k;
                boolean inBatch = batch != null && java.util.Arrays.stream(batch.keys()).anyMatch(b -> b == key);
                if (!inBatch && !TortureValues.isCounter(k) && stable != 0 && !ExpectedState.deleted(stable) && state.pending(k) == 0) {
                    try (LsmStore store = LsmStore.open(storeDir, StoreConfig.builder().memtableBytes(1 << 16)
                            .mergePolicy("no-merge").build())) {
                        store.delete(store.columnFamily(dev.strata.lsm.bench.torture.TortureFamilies.NAMES.get(k % 3)),
                                TortureValues.key(k));
                    }
                    sabotaged.set(k);
                    return;
                }
            }
        };
        // A run stops at its first failure: epochs go on until a child has acknowledged a put
        // (counted in the expected state, not waited for by time); 5 minutes is only a bound.
        int code = execute(command, "--minutes", "5", "--kill-interval", killInterval, "--keys", "500", "--seed", "11",
                "--faults", "off", "--wal-mode", "sync", "--dir", tmp.resolve("run").toString(), "--no-progress");
        String out = streams.out();
        assertTrue(sabotaged.get() >= 0, "no acknowledged put to lose: " + out);
        assertEquals(1, code, out);
        assertTrue(out.contains("FAILED"), out);
        assertEquals(1, figure(out, "losses (\\d+)"), out);
        assertTrue(out.contains("key " + sabotaged.get() + ": absent, but acknowledged version"), out);
    }

    @Test
    void aMissingTableIsAnUnexpectedOpenFailure(@TempDir Path tmp) {
        TortureCommand command = new TortureCommand();
        AtomicInteger removed = new AtomicInteger();
        command.beforeVerify = (storeDir, state, epoch) -> {
            // Remove every table, before every verification until a reopen fails (which ends the
            // run): one file alone may be an obsolete input a killed merge left behind, which open
            // rightly deletes, and an epoch whose data is all in the WAL may leave only such files
            // (the reopen then rightly succeeds: that is why this repeats); once a live table is
            // gone the open must fail.
            java.util.List<Path> tables;
            // In every column family's directory too (families/<id>/).
            try (var files = Files.walk(storeDir)) {
                tables = files.filter(p -> p.getFileName().toString().endsWith(".sst")).toList();
            }
            for (Path table : tables) {
                Files.delete(table);
            }
            if (!tables.isEmpty()) {
                removed.incrementAndGet();
            }
        };
        // A run stops at its first failure: epochs go on until a child has written a table (under
        // load a child can be killed before it flushes, several epochs in a row), and the reopen
        // after the first removal fails and ends the run; 5 minutes is only a bound.
        int code = execute(command, "--minutes", "5", "--kill-interval", "2", "--keys", "500", "--seed", "5",
                "--faults", "off", "--wal-mode", "async", "--dir", tmp.resolve("run").toString(), "--no-progress");
        String out = streams.out();
        assertTrue(removed.get() >= 1, "no table to remove: " + out);
        assertEquals(1, code, out);
        assertTrue(figure(out, "unexpected open failures (\\d+)") >= 1, out);
    }

    @Test
    void rejectsBadArgumentsBeforeTouchingTheDisk(@TempDir Path tmp) {
        Path dir = tmp.resolve("never");
        assertEquals(2, execute(new TortureCommand(), "--minutes", "1", "--policy", "lru", "--dir", dir.toString()));
        assertTrue(streams.err().contains("unknown merge policy 'lru'") && streams.err().contains("binomial"),
                streams.err());
        assertEquals(2, execute(new TortureCommand(), "--minutes", "1", "--wal-mode", "fsync", "--dir", dir.toString()));
        assertEquals(2, execute(new TortureCommand(), "--minutes", "0", "--dir", dir.toString()));
        assertEquals(2, execute(new TortureCommand(), "--minutes", "1", "--fault-kinds", "bitrot", "--dir",
                dir.toString()));
        assertFalse(Files.exists(dir), "a bad argument changes nothing");
    }
}
