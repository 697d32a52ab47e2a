package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.bench.JmhCommand;
import dev.strata.lsm.bench.StandardStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

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

    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    private int jmh(String... args) {
        return new CommandLine(new JmhCommand()).execute(args);
    }

    @Test
    void listShowsEveryBenchmark() {
        assertEquals(0, jmh("-l"), streams.err());
        String listing = streams.out();
        for (String b : BENCHMARKS) {
            assertTrue(listing.contains("dev.strata.lsm.bench.jmh." + b), b + " missing from:\n" + listing);
        }
    }

    @Test
    void jmhOptionsAndPatternsPassThroughInOrder() {
        int rc = jmh("BloomProbeBench", "-l", "-wi", "1", "-i", "1", "-f", "1");
        assertEquals(0, rc, streams.err());
        String listing = streams.out();
        assertTrue(listing.contains("BloomProbeBench.probePresent"), listing);
        assertTrue(listing.contains("BloomProbeBench.probeAbsent"), listing);
        assertFalse(listing.contains("MemtablePutBench"), "the pattern filtered the list:\n" + listing);
    }

    @Test
    void argumentsJmhRejectsAreAUsageError() {
        assertEquals(2, jmh("-wi", "notANumber"));
        assertTrue(streams.err().contains("JMH rejected the arguments"),
                streams.err());
    }
}
