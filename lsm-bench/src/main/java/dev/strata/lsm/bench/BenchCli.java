package dev.strata.lsm.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code lsm-bench} command line: {@code run} and {@code compare} drive workloads against
 * Strata, RocksDB and LevelDB; {@code jmh} runs the microbenchmarks; {@code simulate} runs a merge policy in the
 * cost-model simulator; {@code torture} kills a writing store at random moments and checks every
 * acknowledged write. Run {@code java -jar lsm-bench/target/lsm-bench.jar --help}.
 */
@Command(name = "lsm-bench", mixinStandardHelpOptions = true, version = "lsm-bench 0.1.0",
        description = "Strata's benchmark and policy-simulation tool.",
        subcommands = {RunCommand.class, CompareCommand.class, SimulateCommand.class, PolicyTableCommand.class,
                dev.strata.lsm.bench.designspace.DesignSpaceCommand.class,
                JmhCommand.class, RepairCommand.class, TortureCommand.class, PoliciesCommand.class,
                dev.strata.lsm.bench.measure.MeasureCommand.class,
                CommandLine.HelpCommand.class})
public final class BenchCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (0 success, 2 usage error, 1 failure). */
    public static int run(String... args) {
        return new CommandLine(new BenchCli()).execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: choose one of "
                + spec.subcommands().keySet());
    }
}
