package dev.strata.lsm.bench;

import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.ProfilersFailedException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jmh}: runs Strata's JMH microbenchmarks (package {@code dev.strata.lsm.bench.jmh}).
 * Every argument is handed to JMH unchanged, so the command line is JMH's own:
 * {@code jmh -l} lists the benchmarks, {@code jmh MemtablePutBench -wi 1 -i 1 -f 1} runs one
 * class briefly, {@code jmh -h} prints JMH's options.
 *
 * <p>It does what {@code org.openjdk.jmh.Main} does, except that it returns an exit code
 * instead of calling {@link System#exit}: 0 on success, 1 when no benchmark matches or a run
 * fails, 2 when JMH rejects the arguments.
 *
 * <p>JMH starts each fork with {@code -cp} set to this JVM's {@code java.class.path}. Run
 * from the shaded jar ({@code java -jar lsm-bench.jar jmh ...}) that path is the jar, which
 * holds the benchmarks, their generated harness, {@code META-INF/BenchmarkList} and every
 * dependency, so forks find everything. The command warns when the benchmarks were loaded
 * from somewhere not on that path (a custom class loader), where forks would fail.
 */
@Command(name = "jmh",
        customSynopsis = "lsm-bench jmh [JMH-OPTION...] [BENCHMARK-REGEX...]",
        description = {"Run the JMH microbenchmarks; every argument goes to JMH unchanged.",
                "  jmh -l                                  list the benchmarks",
                "  jmh MemtablePutBench -wi 1 -i 1 -f 1    run one class briefly",
                "  jmh -h                                  JMH's options"})
public final class JmhCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Everything after {@code jmh}. The command declares no options or positional
     * parameters, so picocli files every argument here, in order, instead of rejecting
     * JMH's options such as {@code -wi}.
     */
    @Unmatched
    List<String> jmhArgs = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(jmhArgs.toArray(new String[0]));
        } catch (CommandLineOptionException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "JMH rejected the arguments: " + e.getMessage());
        }
        Runner runner = new Runner(options);
        if (options.shouldHelp()) {
            options.showHelp();
        } else if (options.shouldList()) {
            runner.list();
        } else if (options.shouldListWithParams()) {
            runner.listWithParams(options);
        } else if (options.shouldListProfilers()) {
            options.listProfilers();
        } else if (options.shouldListResultFormats()) {
            options.listResultFormats();
        } else {
            return run(runner, options);
        }
        return 0;
    }

    private static int run(Runner runner, CommandLineOptions options) {
        if (options.getForkCount().orElse(1) != 0) {
            warnIfForksCannotSeeBenchmarks();
        }
        try {
            runner.run();
            return 0;
        } catch (NoBenchmarksException e) {
            System.err.println("No benchmark matches " + options.getIncludes()
                    + "; list them with: jmh -l");
            return 1;
        } catch (ProfilersFailedException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                System.err.println(t.getMessage());
                for (Throwable s : t.getSuppressed()) {
                    System.err.println(s.getMessage());
                }
            }
            return 1;
        } catch (RunnerException e) {
            System.err.print("ERROR: ");
            e.printStackTrace(System.err);
            return 1;
        }
    }

    /** Forks load benchmarks from {@code java.class.path}; say so when ours are not on it. */
    private static void warnIfForksCannotSeeBenchmarks() {
        Path ours;
        try {
            ours = Paths.get(JmhCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toAbsolutePath().normalize();
        } catch (URISyntaxException | RuntimeException e) {
            return;  // No file location to compare against; let JMH report whatever happens.
        }
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!entry.isEmpty() && Paths.get(entry).toAbsolutePath().normalize().equals(ours)) {
                return;
            }
        }
        System.err.println("WARNING: the benchmarks were loaded from " + ours + ", which is not on java.class.path;"
                + " forked benchmark JVMs will not find them. Run java -jar lsm-bench.jar jmh ..., or pass -f 0.");
    }
}
