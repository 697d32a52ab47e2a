package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.bench.JmhCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jmh} hands its arguments to JMH untouched, and every benchmark class is registered. */
class JmhCommandTest {
    private static final List<String> BENCHMARKS = List.of(
            "BlockCacheBench.hit",
            "BloomProbeBench.probeAbsent",
            "BloomProbeBench.probePresent",
            "MemtablePutBench.put",
            "MergeIteratorBench.fullPass",
            "SSTableBuildBench.build",
            "SSTableLookupBench.get",
            "WalAppendBench.append");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    private int jmh(String... args) {
        return new CommandLine(new JmhCommand()).execute(args);
    }

    @Test
    void listShowsEveryBenchmark() {
        assertEquals(0, jmh("-l"), err.toString(StandardCharsets.UTF_8));
        String listing = out.toString(StandardCharsets.UTF_8);
        for (String b : BENCHMARKS) {
            assertTrue(listing.contains("dev.strata.lsm.bench.jmh." + b), b + " missing from:\n" + listing);
        }
    }

    @Test
    void jmhOptionsAndPatternsPassThroughInOrder() {
        int rc = jmh("BloomProbeBench", "-l", "-wi", "1", "-i", "1", "-f", "1");
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        String listing = out.toString(StandardCharsets.UTF_8);
        assertTrue(listing.contains("BloomProbeBench.probePresent"), listing);
        assertTrue(listing.contains("BloomProbeBench.probeAbsent"), listing);
        assertFalse(listing.contains("MemtablePutBench"), "the pattern filtered the list:\n" + listing);
    }

    @Test
    void argumentsJmhRejectsAreAUsageError() {
        assertEquals(2, jmh("-wi", "notANumber"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("JMH rejected the arguments"),
                err.toString(StandardCharsets.UTF_8));
    }
}
