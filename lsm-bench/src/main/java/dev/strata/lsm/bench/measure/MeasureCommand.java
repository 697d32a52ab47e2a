package dev.strata.lsm.bench.measure;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code measure store}, {@code measure sstable} and {@code measure checkpoint}: quick throughput
 * measurements of the store and of one SSTable, without JMH or a workload file. Figures are
 * printed, never asserted; use them to compare two builds on one machine.
 */
@Command(name = "measure", mixinStandardHelpOptions = true,
        description = "Single-thread throughput of the store (puts, gets) or of one SSTable (build, lookups); checkpoint "
                + "and backup times.",
        subcommands = {StoreThroughput.class, SSTableThroughput.class, CheckpointBackupMeasure.class})
public final class MeasureCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing measurement: choose one of "
                + spec.subcommands().keySet());
    }
}
