package dev.strata.lsm.bench.jmh;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The run shape every Strata benchmark inherits (JMH annotations on a superclass apply to
 * its subclasses): 3 warmup and 5 measurement iterations of one second in one forked JVM,
 * which keeps a run of the whole suite to a few minutes while leaving the JIT time to
 * settle. Command-line options ({@code -wi}, {@code -i}, {@code -w}, {@code -r}, {@code -f})
 * override it for a run.
 *
 * <p>The forked JVM gets a fixed 2 GiB heap so that heap resizing does not show up as
 * drift between iterations; the largest benchmark state, a full 64 MiB memtable and the
 * one just discarded, fits it comfortably.
 */
@Warmup(iterations = 3, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public abstract class BenchmarkDefaults {
}
