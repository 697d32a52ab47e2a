package dev.strata.lsm.bench;

import dev.strata.lsm.bench.workload.WorkloadOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code compare}: the same workloads on several engines, each in a fresh directory, over
 * rounds that rotate the engine order; prints medians over rounds and each engine's
 * throughput as a ratio of the first engine's.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Run the same workloads on several engines and compare medians over rounds.")
public final class CompareCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--engines", split = ",", defaultValue = "strata,rocksdb,leveldb",
            description = "engines in report order; ratios are to the first (default ${DEFAULT-VALUE})")
    List<String> engines;

    @Option(names = "--repeat", defaultValue = "1",
            description = "rounds; round r runs the engines in rotation r of the list (default ${DEFAULT-VALUE})")
    int repeat;

    @Mixin
    WorkloadOptions options;

    @Override
    public Integer call() throws IOException, InterruptedException {
        return options.call(spec, engines, repeat);
    }
}
