package dev.strata.lsm.bench.jmh;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JMH harness generated at compile time works: one benchmark runs for one short
 * measurement iteration and reports a score. Not a performance test; the score only has
 * to exist and be positive.
 */
class BenchmarkHarnessTest {
    @TempDir
    Path scratchParent;

    private final String previousParent = System.getProperty(ScratchDirectory.PARENT_PROPERTY);

    @AfterEach
    void restoreProperty() {
        if (previousParent == null) {
            System.clearProperty(ScratchDirectory.PARENT_PROPERTY);
        } else {
            System.setProperty(ScratchDirectory.PARENT_PROPERTY, previousParent);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void uncachedTableLookupRunsOneIterationAndCleansUpItsFiles() throws Exception {
        // No fork: the benchmark runs in this JVM, so it sees this property and the test classpath.
        System.setProperty(ScratchDirectory.PARENT_PROPERTY, scratchParent.toString());
        Options options = new OptionsBuilder()
                .include("^" + Pattern.quote(SSTableLookupBench.class.getName() + ".get") + "$")
                .param("cache", "disabled")
                .param("entries", "20000")
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(200))
                .forks(0)
                .shouldFailOnError(true)
                .build();

        Collection<RunResult> results = new Runner(options).run();

        assertEquals(1, results.size(), "one benchmark with one parameter combination");
        RunResult result = results.iterator().next();
        assertEquals(SSTableLookupBench.class.getName() + ".get", result.getParams().getBenchmark());
        double score = result.getPrimaryResult().getScore();
        assertTrue(score > 0 && Double.isFinite(score), "score " + score);
        assertEquals("ns/op", result.getPrimaryResult().getScoreUnit());
        assertTrue(isEmpty(scratchParent), "the trial's scratch directory was deleted in @TearDown");
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }
}
